// The syscall surface: each call the filter refuses fails with the errno it gives, and signals
// cannot leave the session.

#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include "tests/live/bailey/live_harness.hpp"

using namespace bailey_live;

TEST_CASE("refused syscalls fail with the filter's errno", "[live]") {
  require_full_host();
  Harness h;
  struct Expect {
    const char* call;
    const char* errno_name;
  };
  const auto e = GENERATE(
      Expect{"ptrace", "EPERM"}, Expect{"mount", "EPERM"}, Expect{"unshare-user", "EPERM"},
      Expect{"unshare-net", "EPERM"}, Expect{"keyctl", "EPERM"}, Expect{"add_key", "EPERM"},
      Expect{"bpf", "EPERM"}, Expect{"perf_event_open", "EPERM"}, Expect{"userfaultfd", "EPERM"},
      Expect{"io_uring_setup", "EPERM"}, Expect{"kexec_load", "EPERM"},
      Expect{"init_module", "EPERM"}, Expect{"setns", "EPERM"}, Expect{"pivot_root", "EPERM"},
      Expect{"process_vm_readv", "EPERM"}, Expect{"kcmp", "EPERM"}, Expect{"pidfd_getfd", "EPERM"},
      Expect{"tiocsti", "EPERM"}, Expect{"clone3", "ENOSYS"}, Expect{"clone-newns", "EPERM"},
      Expect{"personality", "EPERM"},
      // No capabilities: what the filter lets through, the kernel refuses.
      Expect{"chroot", "EPERM"});
  const auto r = h.run(h.spec({"syscall", e.call}));
  INFO(e.call << ": " << r.out << r.err << r.launch_error);
  REQUIRE(r.launched);
  CHECK(r.exit.exit_code == 1);
  CHECK(contains(r.out, std::string("errno=") + e.errno_name + " "));
}

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
