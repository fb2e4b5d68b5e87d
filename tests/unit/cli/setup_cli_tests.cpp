// `errand setup` and `errand up` refuse, with exit 2 and a sentence saying why, when they are
// not run as root (the suite runs as the test account) or are misused.
#include "tests/support/daemon_harness.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace errand::test;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("errand setup and errand up as an ordinary account exit 2 saying to run them as root") {
  DaemonHarness h;
  const auto setup = h.run({"setup", "bailey"});
  CHECK(setup.exit_code == 2);
  CHECK_THAT(setup.err, ContainsSubstring("errand setup: run it as root"));
  const auto dry = h.run({"setup", "incus", "--dry-run"});
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
  const auto option = h.run({"setup", "bailey", "--force"});
  CHECK(option.exit_code == 2);
  CHECK_THAT(option.err, ContainsSubstring("unknown option \"--force\""));
  const auto relative = h.run({"setup", "bailey", "--config", "config.json"});
  CHECK(relative.exit_code == 2);
  CHECK_THAT(relative.err, ContainsSubstring("--config needs an absolute path"));
  const auto golden = h.run({"setup", "bailey", "--golden"});
  CHECK(golden.exit_code == 2);
  CHECK_THAT(golden.err, ContainsSubstring("only the incus backend has"));
  const auto join = h.run({"up", "--cgroup-only", "--join", "12x"});
  CHECK(join.exit_code == 2);
  CHECK_THAT(join.err, ContainsSubstring("--join needs a process id, not \"12x\""));
}
