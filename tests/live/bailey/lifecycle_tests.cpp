// Stopping a sandbox, cleaning up after it, and sweeping what a previous daemon left behind.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "common/cgroups/cgroups.hpp"
#include "plugins/sandbox-bailey/impl/launcher_spawn.hpp"
#include "tests/live/bailey/live_harness.hpp"

using namespace bailey_live;
namespace asio = boost::asio;
using std::chrono::milliseconds;

namespace {

std::string read_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The state letter /proc gives a process ('R', 'S', 'Z', ...), or '-' when there is no such
// process.
char process_state(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  const auto close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? '-' : stat[close + 2];
}

// No such process, or one that has died and only waits to be reaped by whoever inherited it (a
// sandbox's first process is reparented when its launcher dies), which runs and holds nothing.
// Waits a little for a reaping under way.
bool dead_per_kernel(pid_t pid) {
  for (int i = 0; i < 20; ++i) {
    if (::kill(pid, 0) == -1 && errno == ESRCH) return true;
    if (const char state = process_state(pid); state == 'Z' || state == 'X') return true;
    std::this_thread::sleep_for(milliseconds(100));
  }
  return false;
}

asio::awaitable<void> sleep_for(milliseconds d) {
  asio::steady_timer t(co_await asio::this_coro::executor, d);
  co_await t.async_wait(asio::use_awaitable);
}

}  // namespace

TEST_CASE("stop sends SIGTERM to the whole sandbox and cleans up", "[live]") {
  require_full_host();
  Harness h(boost::json::object{{"pids", 64}, {"memory", "256m"}});
  const auto layout = errand::cgroups::detect("");
  auto spec = h.spec({"sleep", "30"});
  const auto session = spec.session_id;
  const auto pids_dir = fs::path(layout.pids) / h.backend().cgroup_name(session);
  const auto memory_dir = fs::path(layout.memory) / h.backend().cgroup_name(session);
  std::string seen_pids_max, seen_memory_limit;
  const auto r =
      h.run(spec, [&](errand::sdk::SandboxProcess& p) -> asio::awaitable<errand::sdk::ExitInfo> {
        co_await sleep_for(milliseconds(300));
        seen_pids_max = read_line(pids_dir / "pids.max");
        // The host's own hierarchy says which file holds the limit: memory.max under v2.
        seen_memory_limit = read_line(memory_dir / (errand::cgroups::on_cgroup2(layout.memory)
                                                        ? "memory.max"
                                                        : "memory.limit_in_bytes"));
        co_return co_await p.stop(milliseconds(5000));
      });
  INFO(r.exit.detail << r.launch_error);
  CHECK(seen_pids_max == "64");
  CHECK(seen_memory_limit == std::to_string(256ull << 20));
  // SIGTERM ended it: had the grace run out, the sandbox would have died of SIGKILL instead.
  CHECK(r.exit.signal == SIGTERM);
  CHECK(r.exit.cleanup_complete);
  CHECK_FALSE(fs::exists(pids_dir));
  CHECK_FALSE(fs::exists(memory_dir));
  CHECK_FALSE(fs::exists(h.backend().run_dir(session)));
}

TEST_CASE("a sandbox that ignores SIGTERM is killed after the grace period, and says so",
          "[live]") {
  require_full_host();
  Harness h(boost::json::object{{"pids", 64}});
  const auto layout = errand::cgroups::detect("");
  auto spec = h.spec({"sleep", "30", "--ignore-term"});
  const auto session = spec.session_id;
  const auto procs = fs::path(layout.pids) / h.backend().cgroup_name(session) / "cgroup.procs";
  std::vector<pid_t> inside;  // every process of the sandbox, as host pids, while it runs
  pid_t launcher = 0;
  std::chrono::steady_clock::duration stop_took{};
  const auto r =
      h.run(spec, [&](errand::sdk::SandboxProcess& p) -> asio::awaitable<errand::sdk::ExitInfo> {
        co_await sleep_for(milliseconds(300));
        launcher = p.pid();
        std::ifstream in(procs);
        for (pid_t pid = 0; in >> pid;) inside.push_back(pid);
        const auto stopping = std::chrono::steady_clock::now();
        const auto exit = co_await p.stop(milliseconds(700));
        stop_took = std::chrono::steady_clock::now() - stopping;
        co_return exit;
      });
  const auto log = h.log_text();
  INFO(r.exit.detail << "\nlog:\n" << log);
  // Killed, long before its 30 s sleep would have ended it, and only once the grace was over.
  CHECK(r.exit.signal == SIGKILL);
  CHECK(stop_took >= milliseconds(700));
  CHECK(r.exit.cleanup_complete);
  CHECK(contains(log, "session " + session +
                          ": the agent's end after SIGTERM did not finish within 700 ms; sending "
                          "SIGKILL to the launcher and to every process in the session's cgroups"));
  // Nothing past the first escalation was needed.
  CHECK_FALSE(contains(log, "the launcher's end after SIGKILL"));
  // Gone per the kernel: the launcher and every process the sandbox held.
  REQUIRE(launcher > 0);
  REQUIRE_FALSE(inside.empty());
  inside.push_back(launcher);
  for (const pid_t pid : inside) {
    INFO("pid " << pid << " state " << process_state(pid));
    CHECK(dead_per_kernel(pid));
  }
}

TEST_CASE("an agent that cannot be started is a launch error naming it", "[live]") {
  require_full_host();
  Harness h;
  auto spec = h.spec({});
  // By absolute path, as the daemon passes it, so the launcher's execve is what fails.
  spec.argv = {(probe_dir() / "no-such-agent-binary").string()};
  const auto r = h.run(spec);
  CHECK_FALSE(r.launched);
  CHECK(contains(r.launch_error, "no-such-agent-binary"));
  CHECK(contains(r.launch_error, "No such file or directory"));
  CHECK_FALSE(fs::exists(h.backend().run_dir(spec.session_id)));
}

TEST_CASE("sweep_orphans removes leftover cgroups and run directories and kills their processes",
          "[live]") {
  require_full_host();
  Harness h;
  const auto layout = errand::cgroups::detect("");
  REQUIRE_FALSE(layout.pids.empty());
  const auto orphan_cgroup =
      fs::path(layout.pids) / h.backend().cgroup_name("orphan-" + std::to_string(::getpid()));
  fs::create_directories(orphan_cgroup);
  // Another daemon's session in the same hierarchy, which this sweep must leave alone.
  const auto foreign =
      fs::path(layout.pids) / ("errand-00000000-foreign-" + std::to_string(::getpid()));
  fs::create_directories(foreign);
  const pid_t stray = ::fork();
  if (stray == 0) {
    ::execl("/bin/sleep", "sleep", "60", nullptr);
    ::_exit(127);
  }
  std::ofstream(orphan_cgroup / "cgroup.procs") << stray;
  const auto orphan_run = h.backend().run_dir("orphan-run");
  fs::create_directories(orphan_run);
  std::ofstream(orphan_run / "resolv.conf") << "nameserver 127.0.0.1\n";

  const auto report = h.backend().sweep_orphans();
  int status = 0;
  REQUIRE(::waitpid(stray, &status, 0) == stray);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  CHECK_FALSE(fs::exists(orphan_cgroup));
  CHECK_FALSE(fs::exists(orphan_run));
  CHECK(fs::exists(foreign));
  fs::remove(foreign);
  CHECK(report.complete);
  CHECK(report.removed >= 2);
}

TEST_CASE("when the daemon dies its sandboxes die with it", "[live]") {
  require_full_host();
  const auto layout = errand::cgroups::detect("");
  int report[2];
  REQUIRE(::pipe(report) == 0);
  const std::string session = "orphaned-" + std::to_string(::getpid());
  // The probe's copy is made here, so this process removes it at exit: the child leaves with
  // _exit, which runs no exit handler.
  [[maybe_unused]] const auto probe_copy = probe_dir();
  const pid_t daemon = ::fork();
  if (daemon == 0) {
    // A daemon that starts a session and then vanishes without stopping it.
    ::close(report[0]);
    Harness h;
    h.run(h.spec({"sleep", "60"}, session),
          [&](errand::sdk::SandboxProcess& p) -> asio::awaitable<errand::sdk::ExitInfo> {
            const auto pid =
                std::to_string(p.pid()) + " " + h.state_dir().parent_path().string() + "\n";
            [[maybe_unused]] auto n = ::write(report[1], pid.data(), pid.size());
            ::_exit(0);
            co_return errand::sdk::ExitInfo{};
          });
    ::_exit(1);
  }
  ::close(report[1]);
  char buf[512] = {};
  REQUIRE(::read(report[0], buf, sizeof buf - 1) > 0);
  ::close(report[0]);
  pid_t launcher = 0;
  std::string dead_root;
  std::istringstream(buf) >> launcher >> dead_root;
  int status = 0;
  ::waitpid(daemon, &status, 0);
  const auto cgroup =
      fs::path(layout.pids) / (errand::cgroups::daemon_prefix(dead_root + "/state") + session);
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    std::this_thread::sleep_for(milliseconds(50));
    // Reaped or a zombie: either way nothing of the sandbox still runs.
    const auto start = errand::bailey::process_start_time(launcher);
    std::ifstream procs(cgroup / "cgroup.procs");
    std::string any;
    gone = (start == 0 || read_line("/proc/" + std::to_string(launcher) + "/stat").find(") Z ") !=
                              std::string::npos) &&
           !(procs >> any);
  }
  CHECK(gone);
  // The next daemon on the same state directory sweeps what the dead one left.
  Harness next({}, dead_root);
  next.backend().sweep_orphans();
  CHECK_FALSE(fs::exists(cgroup));
  CHECK_FALSE(fs::exists(next.backend().run_dir(session)));
}
