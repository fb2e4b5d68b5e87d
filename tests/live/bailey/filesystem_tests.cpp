// What a session must not read or write: the host's secrets, the daemon's home and state,
// other sessions, anything outside /workspace and /state, the daemon's environment.

#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <cstdlib>
#include <fstream>

#include "tests/live/bailey/live_harness.hpp"

using namespace bailey_live;

namespace {

// A read refused by the kernel: the path is absent from the sandbox's root or Landlock denies it.
bool refused_read(const Outcome& r) {
  return r.launched && r.exit.exit_code == 1 &&
         (contains(r.out, "errno=ENOENT") || contains(r.out, "errno=EACCES"));
}

}  // namespace

TEST_CASE("host secrets and the daemon's home and state are not readable", "[live]") {
  require_full_host();
  Harness h;
  // The other session's project and the daemon's records exist on the host for real.
  const auto other = h.project_root() / "other-session";
  fs::create_directories(other);
  std::ofstream(other / "secret.txt") << "not yours";
  fs::create_directories(h.state_dir() / "records" / "other-session");
  std::ofstream(h.state_dir() / "records" / "other-session" / "grants.json") << "{}";
  const std::string which = GENERATE(as<std::string>{}, "/etc/shadow", "/root", "/root/.bashrc",
                                     "other-secret", "other-project", "other-records",
                                     "daemon-state", "/home", "/var/log", "/sys/kernel");
  std::string path = which;
  if (which == "other-secret") path = (other / "secret.txt").string();
  if (which == "other-project") path = other.string();
  if (which == "other-records")
    path = (h.state_dir() / "records" / "other-session" / "grants.json").string();
  if (which == "daemon-state") path = h.state_dir().string();
  const bool directory = which == "/root" || which == "/home" || which == "/var/log" ||
                         which == "/sys/kernel" || which == "other-project" ||
                         which == "daemon-state";
  const auto r = h.run(h.spec({directory ? "list" : "read", path}));
  INFO(path << ": " << r.out << r.launch_error);
  CHECK(refused_read(r));
}

TEST_CASE("nothing outside /workspace and /state and /tmp is writable", "[live]") {
  require_full_host();
  Harness h;
  const std::string path =
      GENERATE(std::string("/usr/errand-escape"), std::string("/etc/errand-escape"),
               std::string("/errand-escape"), std::string("/bin/errand-escape"),
               std::string("/proc/sys/kernel/hostname"), std::string("/proc/sysrq-trigger"),
               std::string("/etc/resolv.conf"), std::string("/state/../escape"));
  const auto r = h.run(h.spec({"write", path}));
  INFO(path << ": " << r.out << r.launch_error);
  REQUIRE(r.launched);
  CHECK(r.exit.exit_code == 1);
  if (path == "/proc/sysrq-trigger" && !fs::exists(path)) {
    // This kernel has no magic SysRq, so there is nothing to write.
    CHECK(contains(r.out, "errno=ENOENT"));
  } else {
    CHECK((contains(r.out, "errno=EACCES") || contains(r.out, "errno=EROFS") ||
           contains(r.out, "errno=EPERM")));
  }
}

TEST_CASE("the daemon's /proc entry and environment are out of reach", "[live]") {
  require_full_host();
  Harness h;
  const auto daemon_pid = std::to_string(::getpid());
  SECTION("reading /proc/<daemon pid>/environ fails") {
    const auto r = h.run(h.spec({"read", "/proc/" + daemon_pid + "/environ"}));
    INFO(r.out);
    CHECK(refused_read(r));
  }
  SECTION("a secret in the daemon's environment is in no environ inside") {
    const std::string secret = "errand-live-daemon-secret-" + daemon_pid;
    ::setenv("ERRAND_LIVE_DAEMON_SECRET", secret.c_str(), 1);
    auto spec = h.spec({"environ-scan", secret});
    spec.env = {{"SESSION_VISIBLE", "fine"}};
    const auto r = h.run(spec);
    ::unsetenv("ERRAND_LIVE_DAEMON_SECRET");
    INFO(r.out << r.launch_error);
    REQUIRE(r.launched);
    CHECK(r.exit.exit_code == 0);
    CHECK(contains(r.out, "clean "));
  }
  SECTION("the environment is built, not inherited") {
    ::setenv("ERRAND_LIVE_INHERITED", "leaked", 1);
    auto spec = h.spec({"env", "ERRAND_LIVE_INHERITED"});
    const auto r = h.run(spec);
    ::unsetenv("ERRAND_LIVE_INHERITED");
    CHECK(r.out == "ERRAND_LIVE_INHERITED=(unset)\n");
  }
  SECTION("what the core sets reaches the agent") {
    auto spec = h.spec({"env", "ANTHROPIC_API_KEY"});
    spec.env = {{"ANTHROPIC_API_KEY", "errand-session-standin"}};
    const auto r = h.run(spec);
    CHECK(r.out == "ANTHROPIC_API_KEY=errand-session-standin\n");
  }
}
