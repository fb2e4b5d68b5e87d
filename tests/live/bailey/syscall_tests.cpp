// The syscall surface bailey alone is asked about (the refusals every backend shares are in
// tests/live/escape/): numbers past the known table, the personality query, signals, core dumps.

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>

#include "common/seccomp/seccomp_filter.hpp"
#include "tests/live/bailey/live_harness.hpp"

using namespace bailey_live;

TEST_CASE("the personality query stays allowed", "[live]") {
  require_full_host();
  Harness h;
  const auto r = h.run(h.spec({"syscall", "personality-query"}));
  CHECK(r.exit.exit_code == 0);
}

TEST_CASE("signals cannot reach a host process or the sandbox's supervisor", "[live]") {
  require_full_host();
  Harness h;
  SECTION("the daemon's pid does not exist inside") {
    const auto r = h.run(h.spec({"kill", std::to_string(::getpid()), "10"}));
    INFO(r.out);
    CHECK(r.exit.exit_code == 1);
    CHECK(contains(r.out, "errno=ESRCH"));
  }
  SECTION("PID 1, outside the agent's Landlock domain, refuses") {
    const auto r = h.run(h.spec({"kill", "1", "15"}));
    INFO(r.out);
    CHECK(r.exit.exit_code == 1);
    CHECK(contains(r.out, "errno=EPERM"));
  }
}

TEST_CASE("syscall numbers past the highest this build knows answer ENOSYS", "[live]") {
  require_full_host();
  Harness h;
  // The kernel here may implement the next number (6.18 has calls past Debian 12's
  // libseccomp table); only the filter makes it ENOSYS.
  const int highest = errand::seccomp::highest_known_syscall();
  REQUIRE(highest > 0);
  for (const int nr : {highest + 1, highest + 2, 1000, 100000}) {
    const auto r = h.run(h.spec({"syscall-nr", std::to_string(nr)}));
    INFO(nr << ": " << r.out << r.err << r.launch_error);
    REQUIRE(r.launched);
    CHECK(r.exit.exit_code == 1);
    CHECK(contains(r.out, "errno=ENOSYS "));
  }
  // A known call still answers.
  const auto known = h.run(h.spec({"syscall-nr", std::to_string(SYS_getpid)}));
  CHECK(known.exit.exit_code == 0);
}

TEST_CASE("the agent may not dump core", "[live]") {
  require_full_host();
  Harness h;
  // The launcher inherits the daemon's limit; raise it first, so a session that kept it would
  // show a non-zero limit rather than pass on an environment that happened to set 0.
  rlimit before{};
  REQUIRE(::getrlimit(RLIMIT_CORE, &before) == 0);
  const rlimit unlimited{RLIM_INFINITY, RLIM_INFINITY};
  const rlimit raised = ::setrlimit(RLIMIT_CORE, &unlimited) == 0
                            ? unlimited
                            : rlimit{before.rlim_max, before.rlim_max};
  ::setrlimit(RLIMIT_CORE, &raised);
  const auto r = h.run(h.spec({"rlimit-core"}));
  ::setrlimit(RLIMIT_CORE, &before);
  REQUIRE(raised.rlim_cur > 0);
  INFO(r.out << r.err << r.launch_error);
  CHECK(r.out == "ok soft=0 hard=0\n");
}
