// sandbox-incus through launch(), against the real incusd: a session's stdio is the agent's,
// its secrets reach the agent's environment and never exec's, every end deletes the instance,
// and a stop ends the agent with SIGTERM first, and kills it after the grace, saying so.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "plugins/sandbox-incus/impl/launch_request.hpp"
#include "plugins/sandbox-incus/impl/stop_deadlines.hpp"
#include "tests/live/incus/live_incus_daemon.hpp"

using namespace errand::incus::live;
using Catch::Matchers::ContainsSubstring;
using errand::incus::instance_name;
using errand::incus::kEndAfterKillDeadline;
using errand::incus::kForceStopRequestDeadline;

namespace {

bool has_gap_about(const sdk::EnforcementReport& r, const std::string& guarantee) {
  for (const auto& g : r.gaps)
    if (g.guarantee == guarantee) return true;
  return false;
}

std::string gaps_of(const sdk::EnforcementReport& r) {
  std::string out;
  for (const auto& g : r.gaps) out += g.guarantee + ": " + g.reason + "\n";
  return out;
}

}  // namespace

TEST_CASE("an incus session runs the agent in the guest, with its stdio and its secrets") {
  Daemon daemon;
  auto spec =
      daemon.spec({"/bin/sh", "-c",
                   "read line; echo \"got:$line\"; echo \"secret:$ERRAND_LIVE_SECRET\"; "
                   "echo \"uid:$(id -u) cwd:$(pwd) pid1:$(tr \\\\0 ' ' </proc/1/cmdline)\"; "
                   "echo \"init:$(readlink -f /sbin/init)\"; "
                   "echo oops >&2; exit 7"});
  spec.env.emplace_back("ERRAND_LIVE_SECRET", "stand-in-0123456789");
  const auto report = daemon.probe(spec.policy);
  INFO(gaps_of(report));
  REQUIRE_FALSE(has_gap_about(report, "every incus session"));
  REQUIRE_FALSE(has_gap_about(report, "the session project's restrictions"));
  const auto id = spec.session_id;
  auto process = daemon.launch(std::move(spec));
  CHECK(daemon.instance_exists(id));
  write_all(process->stdin_fd(), "hello\n");
  const auto out = read_all(process->stdout_fd());
  const auto err = read_all(process->stderr_fd());
  CHECK_THAT(out, ContainsSubstring("got:hello"));
  CHECK_THAT(out, ContainsSubstring("secret:stand-in-0123456789"));
  // The agent runs as guestUid in /workspace, under the guest's own init, which is systemd (its
  // name in /proc/1/comm changes only once systemd has started, which the agent may not wait for).
  CHECK_THAT(out, ContainsSubstring("uid:1000 cwd:/workspace pid1:/sbin/init"));
  CHECK_THAT(out, ContainsSubstring("init:/usr/lib/systemd/systemd"));
  CHECK_THAT(err, ContainsSubstring("oops"));
  const auto exit = daemon.run(process->wait());
  CHECK(exit.exit_code == 7);
  CHECK(exit.cleanup_complete);
  CHECK_FALSE(daemon.instance_exists(id));
}

TEST_CASE("stopping an incus session sends the agent SIGTERM and deletes the instance") {
  Daemon daemon;
  auto spec = daemon.spec(
      {"/bin/sh", "-c", "trap 'echo term; exit 3' TERM; echo ready; while :; do sleep 0.1; done"});
  daemon.probe(spec.policy);
  const auto id = spec.session_id;
  auto process = daemon.launch(std::move(spec));
  char ready[6] = {};
  REQUIRE(::read(process->stdout_fd(), ready, 6) == 6);
  CHECK(std::string(ready, 6) == "ready\n");
  const auto exit = daemon.run(process->stop(std::chrono::milliseconds(5000)));
  CHECK(exit.exit_code == 3);
  CHECK(exit.cleanup_complete);
  CHECK_FALSE(daemon.instance_exists(id));
}

TEST_CASE("an incus agent that ignores SIGTERM is killed after the grace, and the log says so") {
  Daemon daemon;
  auto spec =
      daemon.spec({"/bin/sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.1; done"});
  daemon.probe(spec.policy);
  const auto id = spec.session_id;
  auto process = daemon.launch(std::move(spec));
  char ready[6] = {};
  REQUIRE(::read(process->stdout_fd(), ready, 6) == 6);  // the trap is set
  const auto grace = std::chrono::milliseconds(1500);
  const auto started = std::chrono::steady_clock::now();
  const auto exit = daemon.run(process->stop(grace));
  const auto took = std::chrono::steady_clock::now() - started;
  const auto log = daemon.log_text();
  INFO(exit.detail << exit.cleanup_detail << "\nlog:\n" << log);
  CHECK_FALSE(exit.exit_code == std::optional<int>(0));
  CHECK(took >= grace);
  // The grace, then incusd's kill and the instance's forced stop and deletion on a loaded host:
  // well inside the deadlines that would follow.
  CHECK(took < grace + kEndAfterKillDeadline + kForceStopRequestDeadline);
  CHECK(exit.cleanup_complete);
  CHECK_FALSE(daemon.instance_exists(id));
  CHECK_THAT(log, ContainsSubstring("session instance " + instance_name(id) +
                                    ": the agent's end after SIGTERM did not finish within 1500 "
                                    "ms; closing the exec's control connection"));
}
