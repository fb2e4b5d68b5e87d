#pragma once

// One measured run of the sessions benchmark: a fresh `errand run` with the given sandbox
// backend, the fake Discord server, the fake provider and the scripted agent; `sessions`
// channel messages posted at once, each opening a session whose agent answers through the
// broker; then one prompt more in every live session. Before the burst a few sessions are
// opened one at a time, so the uncontended path is measured too.

#include <filesystem>
#include <string>
#include <vector>

namespace errand::bench {

struct RoundSetup {
  std::string backend;           // "bailey" or "noop"
  int sessions = 50;             // opened at once
  int sequential_sessions = 10;  // opened one after another first, each on a quiet daemon
  std::filesystem::path build_dir;
  std::filesystem::path agent;         // the scripted agent, outside /tmp
  std::filesystem::path noop_plugins;  // where sandbox-noop.so was built
};

struct RoundResult {
  std::string problem;  // empty when the round completed
  long daemon_idle_kib = 0;
  long daemon_live_kib = 0;   // with every session live and idle between turns
  long daemon_peak_kib = 0;   // VmHWM at the end
  long sandbox_side_kib = 0;  // RSS of every process below the daemon (launchers, agents)
  std::vector<double> quiet_opening_ms;  // the same, one session opening at a time
  std::vector<double> opening_ms;        // channel message -> first agent text in the new thread
  std::vector<double> follow_up_ms;      // reply in a live thread -> its agent text
};

RoundResult run_round(const RoundSetup& setup);

}  // namespace errand::bench
