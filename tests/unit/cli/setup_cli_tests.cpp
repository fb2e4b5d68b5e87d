// `errand setup` and `errand up` refuse, with exit 2 and a sentence saying why, when they are
// not run as root (the suite runs as the test account) or are misused.
#include "tests/support/daemon_harness.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace errand::test;
using Catch::Matchers::ContainsSubstring;

namespace {

// `errand setup` knows a backend by the sandbox plugin it finds, as `errand run` does: here
// errand's own (the build's plugins) and the fixture backend.
Finished setup_with_every_backend(const DaemonHarness& h, std::vector<std::string> args) {
  auto env = h.environment();
  for (auto& variable : env) {
    if (variable.starts_with("ERRAND_PLUGIN_PATH="))
      variable = "ERRAND_PLUGIN_PATH=" + build_path("plugins").string() + ":" +
                 build_path("tests/daemon-plugins").string();
  }
  return run_to_end(h.argv(std::move(args)), env, h.dir().path());
}

}  // namespace

TEST_CASE("errand setup and errand up as an ordinary account exit 2 saying to run them as root") {
  DaemonHarness h;
  const auto setup = setup_with_every_backend(h, {"setup", "bailey"});
  CHECK(setup.exit_code == 2);
  CHECK_THAT(setup.err, ContainsSubstring("errand setup: run it as root"));
  const auto dry = setup_with_every_backend(h, {"setup", "incus", "--dry-run"});
  CHECK(dry.exit_code == 2);
  CHECK_THAT(dry.err, ContainsSubstring("run it as root"));
  const auto up = h.run({"up"});
  CHECK(up.exit_code == 2);
  CHECK_THAT(up.err, ContainsSubstring("errand up: run it as root"));
}

TEST_CASE("errand setup refuses a missing or unknown backend and unknown options") {
  DaemonHarness h;
  const auto none = h.run({"setup"});
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.err, ContainsSubstring("name the backend: bailey, podman or incus"));
  const auto unknown = h.run({"setup", "docker"});
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, ContainsSubstring("unknown backend \"docker\""));
  const auto option = setup_with_every_backend(h, {"setup", "bailey", "--force"});
  CHECK(option.exit_code == 2);
  CHECK_THAT(option.err, ContainsSubstring("unknown option \"--force\""));
  const auto relative = setup_with_every_backend(h, {"setup", "bailey", "--config", "config.json"});
  CHECK(relative.exit_code == 2);
  CHECK_THAT(relative.err, ContainsSubstring("--config needs an absolute path"));
  const auto golden = setup_with_every_backend(h, {"setup", "bailey", "--golden"});
  CHECK(golden.exit_code == 2);
  CHECK_THAT(golden.err, ContainsSubstring("only the incus backend has"));
  const auto join = h.run({"up", "--cgroup-only", "--join", "12x"});
  CHECK(join.exit_code == 2);
  CHECK_THAT(join.err, ContainsSubstring("--join needs a process id, not \"12x\""));
}

TEST_CASE("a sandbox plugin's setup program gives errand setup its backend and its options") {
  DaemonHarness h;
  // Only the fixture backend is found: its name is a backend, errand's own are not.
  const auto fixture = h.run({"setup", "fixture", "--fail"});
  CHECK(fixture.exit_code == 2);
  CHECK_THAT(fixture.err, ContainsSubstring("errand setup: run it as root"));
  const auto podman = h.run({"setup", "podman"});
  CHECK(podman.exit_code == 2);
  CHECK_THAT(podman.err,
             ContainsSubstring("unknown backend \"podman\" (expected fixture, or agents"));
  // One backend's option given to another is refused, naming whose it is and what it takes.
  const auto golden = setup_with_every_backend(h, {"setup", "fixture", "--golden"});
  CHECK(golden.exit_code == 2);
  CHECK_THAT(golden.err, ContainsSubstring("--golden makes a golden instance, which only the "
                                           "incus backend has (fixture's setup takes --fail)"));
  const auto fail = setup_with_every_backend(h, {"setup", "incus", "--fail"});
  CHECK(fail.exit_code == 2);
  CHECK_THAT(fail.err, ContainsSubstring("--fail makes the fixture backend's step fail, which "
                                         "only the fixture backend has (incus's setup takes "
                                         "--golden)"));
  const auto neither = setup_with_every_backend(h, {"setup", "podman", "--fresh"});
  CHECK(neither.exit_code == 2);
  CHECK_THAT(neither.err, ContainsSubstring("errand setup: unknown option \"--fresh\""));
}
