#include "tests/bench/launch/bailey_parts.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/cgroups/cgroups.hpp"
#include "common/disk_budget/disk_watch.hpp"
#include "common/landlock/landlock_abi.hpp"
#include "common/seccomp/seccomp_filter.hpp"
#include "plugins/sandbox-bailey/common/landlock_rules.hpp"
#include "plugins/sandbox-bailey/common/landlock_ruleset.hpp"
#include "plugins/sandbox-bailey/common/policy_toml.hpp"
#include "tests/bench/launch/bench_measure.hpp"
#include "tests/bench/launch/first_byte.hpp"

namespace errand::bench {

namespace {

namespace cg = errand::cgroups;

// The compiled filter loaded in a forked child (loading is for good), which reports how long
// the load took; a negative figure when it failed.
double time_filter_load(const errand::seccomp::CompiledFilter& filter) {
  int report[2];
  if (::pipe(report) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(report[0]);
    const auto start = Clock::now();
    const int rc = errand::seccomp::load_compiled_filter(filter);
    const double ms = rc == 0 ? ms_since(start) : -1;
    [[maybe_unused]] auto n = ::write(report[1], &ms, sizeof ms);
    ::_exit(0);
  }
  ::close(report[1]);
  double ms = -1;
  if (pid < 0 || ::read(report[0], &ms, sizeof ms) != sizeof ms) ms = -1;
  ::close(report[0]);
  if (pid > 0) ::waitpid(pid, nullptr, 0);
  return ms;
}

const errand::seccomp::CompiledFilter& compiled() {
  static const auto filter = errand::seccomp::CompiledFilter::compile();
  if (!filter) {
    std::fprintf(stderr, "bench_launch: %s\n", filter.error().message.c_str());
    std::exit(1);
  }
  return *filter;
}

}  // namespace

void BaileyParts::compile_filter() {
  const auto start = Clock::now();
  const auto filter = errand::seccomp::CompiledFilter::compile();
  filter_compile_ms = ms_since(start);
  if (!filter) ++failures;
}

void BaileyParts::round(boost::asio::io_context& io, common::DiskWalker& walker,
                        const sdk::LaunchSpec& spec, const std::filesystem::path& daemon_state) {
  // Under the controllers the backend found, with the session's own limits.
  const char* root = std::getenv("BAILEY_CGROUP_ROOT");
  static const auto layout = cg::detect(root == nullptr ? "" : root);
  if (layout.kind != cg::Kind::none) {
    const cg::Limits limits{spec.policy.limits.memory_bytes, spec.policy.limits.pids,
                            static_cast<std::uint64_t>(spec.policy.limits.cpus * 1000.0 + 0.5)};
    const auto start = Clock::now();
    const auto made = cg::create(
        layout, cg::daemon_prefix(daemon_state.string()) + "parts-" + spec.session_id, limits);
    const bool removed = made && cg::remove(*made);
    cgroups_ms.push_back(ms_since(start));
    if (!removed) ++failures;
  }

  if (const auto budget = common::session_disk_budget(spec); budget.measured()) {
    const auto start = Clock::now();
    const auto measured =
        run_on(io, common::measure_disk_baseline(walker, budget, spec.session_id));
    baseline_ms.push_back(ms_since(start));
    if (!measured) ++failures;
  }

  std::ifstream in(spec.record_dir / "policy.toml");
  std::stringstream text;
  text << in.rdbuf();
  const auto policy = bailey::parse_policy(text.str());
  const int abi = std::min(errand::landlock::query_abi().abi, errand::landlock::kNewestKnownAbi);
  if (!policy || abi == 0) {
    ++failures;
  } else {
    landlock_rules = bailey::landlock::rules_for(*policy, abi).paths.size();
    const auto start = Clock::now();
    const auto ruleset = bailey::landlock::make_ruleset(*policy, abi);
    landlock_ms.push_back(ms_since(start));
    if (ruleset)
      ::close(*ruleset);
    else
      ++failures;
  }

  const double load = time_filter_load(compiled());
  if (load < 0)
    ++failures;
  else
    filter_load_ms.push_back(load);
}

void BaileyParts::print() const {
  std::printf("bailey's parts with no counterpart in the bwrap row, each timed alone (medians):\n");
  std::printf("  cgroup limits (memory, pids, cpu) made and removed:   %.2f ms%s\n",
              median(cgroups_ms), cgroups_ms.empty() ? " (no cgroups on this host)" : "");
  std::printf("  disk budget baseline walk of /workspace and /state:  %.2f ms\n",
              median(baseline_ms));
  std::printf("  Landlock ruleset of the session's policy (%zu paths): %.2f ms\n", landlock_rules,
              median(landlock_ms));
  std::printf("  seccomp filter loaded by the agent:                   %.2f ms per launch\n",
              median(filter_load_ms));
  std::printf("  seccomp filter compiled by the plugin:                %.2f ms once per daemon\n",
              filter_compile_ms);
  if (failures != 0) std::printf("  (%d part measurements failed)\n", failures);
}

}  // namespace errand::bench
