// `errand run` maps the code only of the plugins its configuration uses. Every other plugin on
// the search path is still read, by errand's own program run as a helper, so its schema and its
// configuration checks hold exactly as `errand config check` applies them: a value an unused
// plugin's check refuses stops a start and a reload alike, and the plugin stays unmapped.

#include "tests/support/daemon_harness.hpp"

#include <catch2/catch_test_macros.hpp>
#include <csignal>
#include <fstream>
#include <sstream>

using namespace errand::test;
using namespace std::chrono_literals;

namespace {

const std::filesystem::path& shipped_plugin_dir() {
  static const auto dir = build_dir() / "plugins";
  return dir;
}

// The harness's configuration with the shipped plugins on the search path too (plugins.path),
// beside the fixture plugins it runs; with a broker CA file that is not there when asked, which
// only the broker's own check refuses. The broker runs only under egress, so it is unused here.
std::string with_shipped_plugins(std::string text, bool missing_ca = false) {
  std::string added = R"("plugins": {"path": [")" + shipped_plugin_dir().string() + R"("]}, )";
  if (missing_ca) added += R"("broker": {"caFile": "/nonexistent/errand-test-ca.pem"}, )";
  text.insert(text.find('{') + 1, added);
  return text;
}

std::string mappings_of(int pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str();
}

constexpr std::string_view kBrokerRefusal =
    "/nonexistent/errand-test-ca.pem is not a readable file";
const std::vector<std::string> kShippedFiles = {"broker.so", "chat-discord.so", "sandbox-bailey.so",
                                                "sandbox-incus.so", "sandbox-podman.so"};

}  // namespace

TEST_CASE("errand run maps only the plugins its configuration uses, and checks them all") {
  DaemonHarness h;
  for (const auto& file : kShippedFiles)
    REQUIRE(std::filesystem::exists(shipped_plugin_dir() / file));
  h.write_config(with_shipped_plugins(h.config_text()));
  auto daemon = h.start({"run"});
  REQUIRE(daemon->wait_for_output("serving with the fixture sandbox backend", 20s));

  auto mapped = mappings_of(daemon->pid());
  CHECK(mapped.find("/sandbox-fixture.so") != std::string::npos);
  CHECK(mapped.find("/chat-fixture.so") != std::string::npos);
  for (const auto& file : kShippedFiles) {
    INFO(file);
    CHECK(mapped.find((shipped_plugin_dir() / file).string()) == std::string::npos);
  }
  CHECK(daemon->err().find("found plugin sandbox-incus (sandbox ") != std::string::npos);

  // A reload is checked by every plugin too: the unused broker's check refuses this one, and
  // still nothing of the broker is mapped.
  h.write_config(with_shipped_plugins(h.config_text(), true));
  REQUIRE(daemon->wait_for_output("configuration reload refused", 20s));
  CHECK(daemon->err().find(kBrokerRefusal) != std::string::npos);
  mapped = mappings_of(daemon->pid());
  CHECK(mapped.find((shipped_plugin_dir() / "broker.so").string()) == std::string::npos);

  daemon->signal(SIGTERM);
  CHECK(daemon->wait_for(20s) == 0);
}

TEST_CASE("an unused plugin's check refuses errand run as it refuses errand config check") {
  DaemonHarness h;
  h.write_config(with_shipped_plugins(h.config_text(), true));
  const auto checked = h.run({"config", "check"});
  const auto run = h.run({"run"});
  INFO(checked.err << run.err);
  CHECK(checked.exit_code == 2);
  CHECK(run.exit_code == 2);
  CHECK(checked.err.find(kBrokerRefusal) != std::string::npos);
  CHECK(run.err.find(kBrokerRefusal) != std::string::npos);
}
