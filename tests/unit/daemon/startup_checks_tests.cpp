// What `errand run` checks about the host before it serves: the kage it will run, what sessions
// could reach, and whether a brokered provider's host resolves here.

#include "core/daemon/startup_checks.hpp"
#include "tests/support/daemon_harness.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <csignal>

using namespace errand::test;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

void replace_once(std::string& text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
}

// The harness's configuration with the sandbox's network set to `network` and an egress block.
std::string with_network(const DaemonHarness& h, const std::string& network,
                         const std::string& egress) {
  auto text = h.config_text();
  replace_once(text, "\"network\": \"none\"",
               "\"network\": \"" + network + "\", \"egress\": " + egress);
  return text;
}

// An effective configuration as the checks see it: the settings they read, the rest left out.
json::object effective(const std::string& egress_allow, bool brokered, const std::string& base) {
  return json::parse(R"({"sandbox": {"network": "restricted", "egress": {"mode": "proxy",
      "allow": )" + egress_allow +
                     R"(}}, "agent": {"providers": {"anthropic": {"credential": "k",
      "baseUrl": ")" +
                     base + R"(", "broker": )" + (brokered ? "true" : "false") + "}}}}")
      .as_object();
}

}  // namespace

TEST_CASE("the daemon asks kage which providers it knows when it starts, not at a first session",
          "[key:agent.kind][key:agent.command]") {
  DaemonHarness h;
  h.write_fake_kage("FAKE_AGENT_PROVIDERS=anthropic,zai");
  h.write_config(h.config_text());
  auto daemon = h.start({"run"});
  REQUIRE(daemon->wait_for_output("serving with the fixture sandbox backend", 20s));
  const auto err = daemon->err();
  const auto asked = err.find("the host's kage knows 2 provider(s)");
  CHECK(asked != std::string::npos);
  CHECK(asked < err.find("serving with the fixture sandbox backend"));
  daemon->signal(SIGTERM);
  CHECK(daemon->wait_for(20s) == 0);
}

TEST_CASE("a kage too old to say which providers it knows stops the start with exit 2") {
  DaemonHarness h;
  h.write_fake_kage("FAKE_AGENT_MODELS_LIST=unknown");
  h.write_config(h.config_text());
  const auto r = h.run({"run"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("the host's kage is too old to say which providers it knows") !=
        std::string::npos);
  CHECK(r.err.find("install a newer kage") != std::string::npos);
  CHECK(r.err.find("serving with") == std::string::npos);
}

TEST_CASE("a kage that is not installed stops the start with exit 2 saying where to look") {
  DaemonHarness h;
  auto text = h.config_text();
  replace_once(text, h.fake_kage_path().string(), (h.dir() / "bin" / "no-kage-here").string());
  h.write_config(text);
  const auto r = h.run({"run"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("errand cannot ask kage which providers it knows") != std::string::npos);
  CHECK(r.err.find("agent.command") != std::string::npos);
}

TEST_CASE("a provider kage does not know and cannot be told about stops the start",
          "[key:agent.providers.<name>.baseUrl]") {
  DaemonHarness h;
  auto text = h.config_text();
  // Under egress open nothing brokers the provider, so kage needs its endpoint.
  replace_once(text, "\"anthropic\": {", "\"my-local-llm\": {");
  replace_once(text, "\"provider\": \"anthropic\"", "\"provider\": \"my-local-llm\"");
  replace_once(text, "\"network\": \"none\"",
               "\"network\": \"none\", \"egress\": {\"mode\": \"open\"}");
  h.write_config(text);
  const auto r = h.run({"run"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("kage cannot run with this configuration") != std::string::npos);
  CHECK(r.err.find("agent.providers.my-local-llm.baseUrl") != std::string::npos);
}

TEST_CASE("a provider name kage reserves is refused at start and on a reload") {
  DaemonHarness h;
  auto reserved = h.config_text();
  replace_once(reserved, "\"anthropic\": {", "\"acp\": {");
  replace_once(reserved, "\"provider\": \"anthropic\"", "\"provider\": \"acp\"");
  h.write_config(reserved);
  const auto r = h.run({"run"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("kage reserves the provider name \"acp\"") != std::string::npos);

  h.write_config(h.config_text());
  auto daemon = h.start({"run"});
  REQUIRE(daemon->wait_for_output("serving with the fixture sandbox backend", 20s));
  auto custom = reserved;
  replace_once(custom, "\"acp\": {", "\"custom\": {");
  replace_once(custom, "\"provider\": \"acp\"", "\"provider\": \"custom\"");
  h.write_config(custom);
  REQUIRE(daemon->wait_for_output("configuration reload refused", 20s));
  CHECK(daemon->err().find("kage reserves the provider name \"custom\"") != std::string::npos);
  daemon->signal(SIGTERM);
  CHECK(daemon->wait_for(20s) == 0);
}

TEST_CASE("an empty allowlist with no brokered provider is refused at start",
          "[key:sandbox.egress.allow]") {
  DaemonHarness h;
  auto text = with_network(h, "restricted", R"({"mode": "proxy", "allow": []})");
  replace_once(
      text, "\"kind\": \"anthropic\"",
      "\"kind\": \"anthropic\", \"broker\": false, \"baseUrl\": \"https://api.anthropic.com\"");
  h.write_config(text);
  const auto r = h.run({"run"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("sessions could reach no host at all") != std::string::npos);
  CHECK(r.err.find("sandbox.egress.allow") != std::string::npos);
}

TEST_CASE("an empty allowlist is no refusal while a provider is brokered or a host is named") {
  using errand::daemon::refuse_empty_egress;
  CHECK(refuse_empty_egress(effective("[]", false, "https://api.anthropic.com")).has_error());
  CHECK_FALSE(refuse_empty_egress(effective("[]", true, "https://api.anthropic.com")).has_error());
  CHECK_FALSE(refuse_empty_egress(effective(R"(["api.anthropic.com"])", false, "https://x.example"))
                  .has_error());
  auto open = effective("[]", false, "https://api.anthropic.com");
  open["sandbox"].as_object()["network"] = "none";
  CHECK_FALSE(refuse_empty_egress(open).has_error());
}

TEST_CASE("a brokered provider whose host does not resolve here is warned about at start") {
  using errand::daemon::unresolved_provider_warnings;
  const auto warnings =
      unresolved_provider_warnings(effective("[]", true, "https://api.errand-test.invalid/v1"));
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("agent.providers.anthropic.baseUrl") != std::string::npos);
  CHECK(warnings[0].find("api.errand-test.invalid does not resolve") != std::string::npos);
  CHECK(warnings[0].find("/etc/resolv.conf") != std::string::npos);
  // Not brokered: the broker does not resolve it, so it is not this warning's business.
  CHECK(unresolved_provider_warnings(effective("[]", false, "https://api.errand-test.invalid"))
            .empty());
  // An address literal needs no resolver.
  CHECK(unresolved_provider_warnings(effective("[]", true, "https://127.0.0.1:8443")).empty());
}

TEST_CASE("errand run warns about an unresolvable brokered provider host, naming resolv.conf") {
  DaemonHarness h;
  auto text = with_network(h, "restricted", R"({"mode": "proxy", "allow": ["example.com"]})");
  replace_once(text, "\"kind\": \"anthropic\"",
               "\"kind\": \"anthropic\", \"baseUrl\": \"https://api.errand-test.invalid\"");
  h.write_config(text);
  // The fixture plugins carry no broker, so the start ends at the broker; the warning comes
  // first, from the configuration alone.
  const auto r = h.run({"run"});
  CHECK(r.err.find("api.errand-test.invalid does not resolve on this host") != std::string::npos);
  CHECK(r.err.find("/etc/resolv.conf") != std::string::npos);
}
