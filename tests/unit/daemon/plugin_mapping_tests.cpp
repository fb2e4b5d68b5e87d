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

// A backend of the daemon's fixtures on a search path of its own, which no test chooses.
const std::filesystem::path& unused_plugin_dir() {
  static const auto dir = build_dir() / "tests" / "daemon-plugins-unused";
  return dir;
}

// The harness's configuration with the unused backend's directory on the search path too
// (plugins.path), beside the fixture plugins it runs; refusing, with the one value only that
// backend's own check refuses.
std::string with_unused_backend(const DaemonHarness& h, bool refusing = false) {
  auto text = h.config_text(refusing ? R"("unused": {"refuse": true})" : "");
  text.insert(text.find('{') + 1,
              R"("plugins": {"path": [")" + unused_plugin_dir().string() + R"("]}, )");
  return text;
}

std::string mappings_of(int pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str();
}

constexpr std::string_view kUnusedRefusal =
    "the unused fixture backend refuses this configuration, as its test asked";

}  // namespace

TEST_CASE("errand run maps only the plugins its configuration uses, and checks them all") {
  DaemonHarness h;
  const auto unused = unused_plugin_dir() / "sandbox-unused.so";
  REQUIRE(std::filesystem::exists(unused));
  h.write_config(with_unused_backend(h));
  auto daemon = h.start({"run"});
  REQUIRE(daemon->wait_for_output("serving with the fixture sandbox backend", 20s));

  auto mapped = mappings_of(daemon->pid());
  CHECK(mapped.find("/sandbox-fixture.so") != std::string::npos);
  CHECK(mapped.find("/chat-fixture.so") != std::string::npos);
  CHECK(mapped.find(unused.string()) == std::string::npos);
  CHECK(daemon->err().find("found plugin sandbox-unused (sandbox 0.0.1)") != std::string::npos);

  // A reload is checked by every plugin too: the unused backend's check refuses this one, and
  // still nothing of it is mapped.
  h.write_config(with_unused_backend(h, true));
  REQUIRE(daemon->wait_for_output("configuration reload refused", 20s));
  CHECK(daemon->err().find(kUnusedRefusal) != std::string::npos);
  mapped = mappings_of(daemon->pid());
  CHECK(mapped.find(unused.string()) == std::string::npos);

  daemon->signal(SIGTERM);
  CHECK(daemon->wait_for(20s) == 0);
}

TEST_CASE("an unused plugin's check refuses errand run as it refuses errand config check") {
  DaemonHarness h;
  h.write_config(with_unused_backend(h, true));
  const auto checked = h.run({"config", "check"});
  const auto run = h.run({"run"});
  INFO(checked.err << run.err);
  CHECK(checked.exit_code == 2);
  CHECK(run.exit_code == 2);
  CHECK(checked.err.find(kUnusedRefusal) != std::string::npos);
  CHECK(run.err.find(kUnusedRefusal) != std::string::npos);
}
