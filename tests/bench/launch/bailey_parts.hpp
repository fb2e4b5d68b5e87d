#pragma once

// The parts of a bailey launch that the bwrap row has no counterpart for, each timed alone in
// the same run as the launches, so the report shows where bailey's extra time goes: the
// session's cgroups, the disk budget's baseline walk, the Landlock ruleset, and the syscall
// filter (compiled once per daemon, loaded by every agent).

#include <boost/asio/io_context.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <filesystem>
#include <vector>

#include "common/disk_budget/disk_walker.hpp"

namespace errand::bench {

struct BaileyParts {
  std::vector<double> cgroups_ms;      // create under each controller with limits, then remove
  std::vector<double> baseline_ms;     // the disk budget's baseline walk, as launch() awaits it
  std::vector<double> landlock_ms;     // the ruleset of the session's own policy, built
  std::vector<double> filter_load_ms;  // the compiled filter loaded, in a forked child
  std::size_t landlock_rules = 0;
  double filter_compile_ms = 0;  // once per daemon
  int failures = 0;

  // Times the one-off compile of the syscall filter.
  void compile_filter();
  // Times each per-launch part once for spec, a session launched before (its policy file in
  // the record directory is the one the launcher enforced).
  void round(boost::asio::io_context& io, common::DiskWalker& walker, const sdk::LaunchSpec& spec,
             const std::filesystem::path& daemon_state);
  void print() const;
};

}  // namespace errand::bench
