#include <catch2/catch_test_macros.hpp>

#include "tests/support/result_printing.hpp"

#include <fmt/format.h>
#include <boost/json/parse.hpp>

#include "core/config/plugin_view.hpp"
#include "core/sandbox/broker_spec.hpp"
#include "core/sandbox/policy_from_config.hpp"
#include "plugins/broker/broker.hpp"
#include "plugins/broker/settings.hpp"

using namespace errand::broker;

namespace {
// The broker's settings for a session whose spec the core built from the same configuration,
// as a daemon's session opens it.
BrokerSettings read(std::string_view json) {
  const auto config = boost::json::parse(json).as_object();
  auto s = read_settings(config);
  if (!s) FAIL(s.error().message);
  auto policy = errand::sandbox::policy_from_config(config);
  if (!policy) FAIL(policy.error().message);
  auto session = settings_for_session(*s, errand::sandbox::broker_session_spec(*policy));
  if (!session) FAIL(session.error().message);
  return std::move(*session);
}
}  // namespace

TEST_CASE("an egress block left out means every host; one without allow means none",
          "[settings]"
          "[key:sandbox.egress.allow]"
          "[key:sandbox.egressPorts]") {
  CHECK(read(R"({})").allow.patterns() == std::vector<std::string>{"*"});
  CHECK(read(R"({"sandbox": {"egress": {"mode": "proxy"}}})").allow.patterns().empty());
  CHECK(read(R"({"sandbox": {"egress": {"allow": ["a.com"]}}})").allow.patterns() ==
        std::vector<std::string>{"a.com"});
  CHECK(read(R"({})").egress_ports == std::vector<std::uint16_t>{443});
  CHECK(read(R"({"sandbox": {"egressPorts": [80, 443]}})").port_allowed(80));
}

TEST_CASE("placement follows the setting, then the kind, then neither",
          "[settings]"
          "[key:agent.providers.<name>.placement]"
          "[key:agent.providers.<name>.kind]") {
  const auto s = read(R"({"agent": {"providers": {
    "a": {"credential": "k1234567", "kind": "anthropic"},
    "o": {"credential": "k1234567", "kind": "openai"},
    "n": {"credential": "k1234567", "baseUrl": "https://llm.example.com/v1"},
    "b": {"credential": "k1234567", "kind": "anthropic", "placement": "bearer"},
    "off": {"credential": "k1234567", "kind": "openai", "broker": false},
    "nokey": {"kind": "openai"}
  }}})");
  CHECK(s.providers.at("a").placement == Placement::x_api_key);
  CHECK(s.providers.at("o").placement == Placement::bearer);
  CHECK(s.providers.at("n").placement == Placement::either);
  CHECK(s.providers.at("b").placement == Placement::bearer);
  CHECK_FALSE(s.providers.contains("off"));
  CHECK_FALSE(s.providers.contains("nokey"));
  CHECK(s.providers.at("a").credential_name == "ANTHROPIC_API_KEY");
  CHECK(s.providers.at("n").credential_name == "N_API_KEY");
  CHECK(s.providers.at("a").upstream->host == "api.anthropic.com");
  CHECK(s.providers.at("o").upstream->base_path == "/v1");
  CHECK(s.providers.at("n").max_concurrent == 4);
}

TEST_CASE("a provider base URL must be https, or http to a loopback literal allowInternal lists",
          "[settings]"
          "[key:sandbox.egress.allowInternal]"
          "[key:agent.providers.<name>.baseUrl]") {
  const auto plain = read(R"({"agent": {"providers": {
    "p": {"credential": "k1234567", "baseUrl": "http://llm.example.com"},
    "l": {"credential": "k1234567", "baseUrl": "http://127.0.0.1:8080/v1/"}
  }}})");
  CHECK_FALSE(plain.providers.at("p").upstream);
  CHECK(plain.providers.at("p").refusal.find("unencrypted") != std::string::npos);
  CHECK_FALSE(plain.providers.at("l").upstream);

  const auto internal = read(R"({"sandbox": {"egress": {"allowInternal": ["127.0.0.1/32"]}},
    "agent": {"providers": {
      "l": {"credential": "k1234567", "baseUrl": "http://127.0.0.1:8080/v1/"},
      "unlisted": {"credential": "k1234567", "baseUrl": "http://127.0.0.2:8080"},
      "name": {"credential": "k1234567", "baseUrl": "http://localhost:8080"}
  }}})");
  REQUIRE(internal.providers.at("l").upstream);
  CHECK_FALSE(internal.providers.at("l").upstream->tls);
  CHECK(internal.providers.at("l").upstream->port == 8080);
  CHECK(internal.providers.at("l").upstream->base_path == "/v1");
  CHECK_FALSE(internal.providers.at("unlisted").upstream);
  CHECK(internal.providers.at("unlisted").refusal.find("listed in sandbox.egress.allowInternal") !=
        std::string::npos);
  CHECK_FALSE(internal.providers.at("name").upstream);

  // A LAN range does not make plain http to a loopback literal acceptable.
  const auto lan = read(R"({"sandbox": {"egress": {"allowInternal": ["10.1.2.0/24"]}},
    "agent": {"providers": {
      "l": {"credential": "k1234567", "baseUrl": "http://127.0.0.1:8080/v1/"}}}})");
  CHECK_FALSE(lan.providers.at("l").upstream);
}

TEST_CASE("allowInternal is a list of address ranges, each reaching the session parsed",
          "[settings]") {
  const auto ranges = read(R"({"sandbox": {"egress": {"allowInternal":
    ["10.1.2.0/24", "fd12:3456::/48", "192.168.7.9"]}}})");
  REQUIRE(ranges.allow_internal.size() == 3);
  CHECK(ranges.allow_internal[0].prefix == 24);
  CHECK(ranges.allow_internal[2].prefix == 32);

  // The core validated what it puts in a spec; a spec from elsewhere is refused, never read as
  // naming no range. Refusing a malformed range by name is the core's (tests/unit/sandbox).
  errand::sdk::BrokerSessionSpec spec;
  spec.allow_internal = {"10.1.2.0/24", "10.1.2.5/24"};
  const auto refused = settings_for_session(BrokerSettings{}, spec);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.starts_with(
      "sandbox.egress.allowInternal: \"10.1.2.5/24\" is not an address range"));
  errand::sdk::ConfigProblems problems;
  Broker::validate_config(
      boost::json::parse(R"({"sandbox": {"egress": {"allowInternal": ["10.1.2.5/24"]}}})")
          .as_object(),
      problems);
  CHECK(problems.all().empty());
}

TEST_CASE("broken provider settings are refused with the key named", "[settings]") {
  const auto bad = read_settings(boost::json::parse(R"({"agent": {"providers": {
    "p": {"credential": "k1234567", "kind": "openai", "strictCapabilities": true}}}})")
                                     .as_object());
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("agent.providers.p.strictCapabilities") != std::string::npos);
  const auto empty = read_settings(boost::json::parse(R"({"agent": {"providers": {
    "p": {"credential": "k1234567", "kind": "openai", "capabilities": []}}}})")
                                       .as_object());
  REQUIRE_FALSE(empty);
  CHECK(empty.error().message.find("capabilities") != std::string::npos);
}

TEST_CASE("provider base URLs of every shape: the path kept without its trailing slash, or refused",
          "[settings]") {
  auto upstream_of = [](const std::string& base_url) {
    boost::json::object provider{{"credential", "k1234567"}, {"baseUrl", base_url}};
    boost::json::object config{
        {"agent", boost::json::object{{"providers", boost::json::object{{"p", provider}}}}}};
    auto s = read_settings(config);
    REQUIRE(s);
    return s->providers.at("p");
  };
  const std::vector<std::pair<std::string, std::string>> accepted{
      {"https://llm.example.com", ""},
      {"https://llm.example.com/", ""},
      {"https://llm.example.com/v1", "/v1"},
      {"https://llm.example.com/openai/v1/", "/openai/v1"},
  };
  for (const auto& [url, base_path] : accepted) {
    INFO(url);
    const auto p = upstream_of(url);
    REQUIRE(p.upstream);
    CHECK(p.upstream->base_path == base_path);
    CHECK(p.upstream->host == "llm.example.com");
    CHECK(p.upstream->port == 443);
  }
  const std::vector<std::pair<std::string, std::string>> refused{
      {"https://llm.example.com/v1?beta=1", "a query"},
      {"https://llm.example.com/v1#x", "a fragment"},
      {"https://user:pw@llm.example.com", "user information"},
      {"https://llm.example.com:99999", "1 to 65535"},
      {"ftp://llm.example.com", "neither https:// nor http://"},
  };
  for (const auto& [url, words] : refused) {
    INFO(url);
    const auto p = upstream_of(url);
    CHECK_FALSE(p.upstream);
    CHECK(p.refusal.find(words) != std::string::npos);
    const auto shown = words == "user information" ? "https://llm.example.com" : url;
    CHECK(p.refusal.find("\"" + shown + "\"") != std::string::npos);
    CHECK(p.refusal.find("pw@") == std::string::npos);
  }
}

TEST_CASE("agent.delegate is read with agent.provider, deadlineMs defaulting to a minute",
          "[settings][delegate]"
          "[key:agent.delegate.model]"
          "[key:agent.delegate.deadlineMs]") {
  CHECK_FALSE(read(R"({"agent": {"provider": "p"}})").delegate.has_value());
  const auto plain = read(R"({"agent": {"provider": "p", "delegate": {"model": "small"}}})");
  REQUIRE(plain.delegate.has_value());
  CHECK(plain.delegate->provider == "p");
  CHECK(plain.delegate->model == "small");
  CHECK(plain.delegate->deadline == std::chrono::milliseconds(60000));
  const auto quick =
      read(R"({"agent": {"provider": "p", "model": "big", "delegate": {"model": "small",
           "deadlineMs": 1500}}})");
  REQUIRE(quick.delegate.has_value());
  CHECK(quick.delegate->deadline == std::chrono::milliseconds(1500));
  CHECK(quick.start_model == "big");
  const auto zero = read_settings(
      boost::json::parse(R"({"agent": {"delegate": {"model": "m", "deadlineMs": 0}}})")
          .as_object());
  REQUIRE_FALSE(zero);
  CHECK(zero.error().message.find("agent.delegate.deadlineMs") != std::string::npos);
}

TEST_CASE("a provider's dialect is its kind, or else the header its key travels in",
          "[settings][delegate]") {
  const auto s = read(R"({"agent": {"providers": {
      "a": {"credential": "k", "kind": "anthropic"},
      "o": {"credential": "k", "kind": "openai"},
      "x": {"credential": "k", "baseUrl": "https://x.example", "placement": "x-api-key"},
      "b": {"credential": "k", "baseUrl": "https://b.example", "placement": "bearer"},
      "n": {"credential": "k", "baseUrl": "https://n.example"}}}})");
  CHECK(s.providers.at("a").dialect == Dialect::anthropic);
  CHECK(s.providers.at("o").dialect == Dialect::openai);
  CHECK(s.providers.at("x").dialect == Dialect::anthropic);
  CHECK(s.providers.at("b").dialect == Dialect::openai);
  CHECK(s.providers.at("n").dialect == Dialect::unknown);
}

// The host hands the broker only the keys it declares (its config_schema's and its
// config_reads); a key it reads but forgot to declare would be absent and quietly at its default.
TEST_CASE("what the broker reads from the keys it declares is what it reads from the whole file",
          "[settings]") {
  const auto whole = boost::json::parse(R"({
    "chat": {"token": "chat-token-0123456789", "channelId": "1"},
    "agent": {"provider": "p", "model": "big",
              "delegate": {"model": "small", "deadlineMs": 1500},
              "providers": {"p": {"credential": "k1234567", "kind": "openai", "maxConcurrentRequests": 2},
                            "q": {"credential": "k7654321", "baseUrl": "https://llm.example.com/v1"}}},
    "broker": {"caFile": "/etc/ssl/private-ca.pem"}
  })")
                         .as_object();
  auto keys = errand::config::plugin_keys(Broker::config_schema, Broker::config_reads);
  REQUIRE(keys.has_value());
  const auto view = errand::config::plugin_view(whole, keys->all());
  CHECK(view.if_contains("chat") == nullptr);

  auto from_whole = read_settings(whole);
  auto from_view = read_settings(view);
  REQUIRE(from_whole.has_value());
  REQUIRE(from_view.has_value());
  CHECK(from_view->start_model == "big");
  CHECK(from_view->ca_file == std::filesystem::path("/etc/ssl/private-ca.pem"));
  REQUIRE(from_view->delegate.has_value());
  CHECK(from_view->delegate->provider == "p");
  CHECK(from_view->delegate->model == "small");
  CHECK(from_view->delegate->deadline == std::chrono::milliseconds(1500));
  REQUIRE(from_view->providers.size() == 2);
  CHECK(from_view->providers.at("p").max_concurrent == 2);
  CHECK(from_view->providers.at("q").base_url == from_whole->providers.at("q").base_url);
  CHECK(from_view->providers.at("p").credential == from_whole->providers.at("p").credential);
}
