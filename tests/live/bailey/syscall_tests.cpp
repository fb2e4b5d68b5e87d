// The syscall surface: each call the filter refuses fails with the errno it gives, and signals
// cannot leave the session.

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include "plugins/sandbox-bailey/common/seccomp_filter.hpp"
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
      Expect{"personality", "EPERM"}, Expect{"modify_ldt", "EPERM"}, Expect{"vmsplice", "EPERM"},
      Expect{"quotactl", "EPERM"}, Expect{"name_to_handle_at", "EPERM"},
      Expect{"tiocsetd", "EPERM"},
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

TEST_CASE("sockets of families other than unix, IPv4, IPv6 and netlink are refused", "[live]") {
  require_full_host();
  Harness h;
  SECTION("vsock, packet and alg fail with EAFNOSUPPORT, from socket() and socketpair()") {
    // Without the filter a vsock socket is created here and a packet socket fails with EPERM
    // (no CAP_NET_RAW), so EAFNOSUPPORT for them comes from the filter alone.
    for (const char* call : {"socket", "socketpair"})
      for (const char* family : {"vsock", "packet", "alg"}) {
        const auto r = h.run(h.spec({call, family}));
        INFO(call << " " << family << ": " << r.out << r.err << r.launch_error);
        REQUIRE(r.launched);
        CHECK(r.exit.exit_code == 1);
        CHECK(contains(r.out, "errno=EAFNOSUPPORT "));
      }
  }
  SECTION("unix, IPv4, IPv6 and netlink sockets are still made") {
    for (const char* family : {"unix", "inet", "inet6", "netlink"}) {
      const auto r = h.run(h.spec({"socket", family}));
      INFO(family << ": " << r.out << r.err << r.launch_error);
      CHECK(r.exit.exit_code == 0);
      CHECK(contains(r.out, "ok "));
    }
    const auto pair = h.run(h.spec({"socketpair", "unix"}));
    INFO(pair.out);
    CHECK(pair.exit.exit_code == 0);
  }
}

TEST_CASE("syscall numbers past the highest this build knows answer ENOSYS", "[live]") {
  require_full_host();
  Harness h;
  // The kernel here may implement the next number (6.18 has calls past Debian 12's
  // libseccomp table); only the filter makes it ENOSYS.
  const int highest = errand::bailey::highest_known_syscall();
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
