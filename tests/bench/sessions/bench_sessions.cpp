// Many sessions through the real daemon: its resident memory idle and per live session, and
// the time from a chat message to the agent's first text in the thread (sessions opened one at
// a time, then all at once, then a reply in each), with bailey against sandbox-noop (the same
// path with no confinement at all), alternating the two so both see the same machine. The
// difference is the sandbox's share.
//
//   bench_sessions [sessions] [rounds]     (defaults 50 and 2; started as root, it runs as
//                                           the test account, as the daemon is deployed)
//   BENCH_TRACE=1 bench_sessions ...       also prints every Discord request of each burst

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "session_round.hpp"
#include "tests/support/program_copy.hpp"
#include "tests/support/test_account.hpp"
#include "tests/support/test_paths.hpp"

namespace {

using errand::bench::RoundResult;

double percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  // Nearest rank: the smallest value with at least `fraction` of the samples at or below it.
  const auto rank =
      static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(values.size())));
  return values[std::max<std::size_t>(rank, 1) - 1];
}

long median_of(std::vector<long> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

struct Totals {
  std::vector<double> quiet_opening, opening, follow_up;
  std::vector<long> idle, live, peak, sandbox_side;
  void add(const RoundResult& r) {
    quiet_opening.insert(quiet_opening.end(), r.quiet_opening_ms.begin(), r.quiet_opening_ms.end());
    opening.insert(opening.end(), r.opening_ms.begin(), r.opening_ms.end());
    follow_up.insert(follow_up.end(), r.follow_up_ms.begin(), r.follow_up_ms.end());
    idle.push_back(r.daemon_idle_kib);
    live.push_back(r.daemon_live_kib);
    peak.push_back(r.daemon_peak_kib);
    sandbox_side.push_back(r.sandbox_side_kib);
  }
};

double ratio(double a, double b) {
  return b > 0 ? a / b : 0;
}

}  // namespace

// The benchmark itself; main runs it as the test account, as the daemon is deployed.
static int benchmark(int argc, char** argv) {
  const int sessions = argc > 1 ? std::atoi(argv[1]) : 50;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 2;
  if (sessions < 1 || rounds < 1) {
    std::fprintf(stderr, "usage: bench_sessions [sessions >= 1] [rounds >= 1]\n");
    return 2;
  }
  errand::bench::RoundSetup setup;
  setup.sessions = sessions;
  setup.build_dir = errand::test::build_dir();
  setup.noop_plugins = errand::test::build_path(ERRAND_NOOP_PLUGIN_DIR);
  setup.agent = errand::test::copy_outside_tmp(setup.build_dir / "tests/fakes/bin/fake-acp-agent",
                                               "errand-bench-agent");

  Totals bailey, noop;
  for (int round = 0; round < rounds; ++round) {
    for (const char* backend : {"bailey", "noop"}) {
      setup.backend = backend;
      std::fprintf(stderr, "round %d: %d sessions on %s\n", round + 1,
                   sessions + setup.sequential_sessions, backend);
      const auto result = errand::bench::run_round(setup);
      if (!result.problem.empty()) {
        std::fprintf(stderr, "round %d on %s failed: %s\n", round + 1, backend,
                     result.problem.c_str());
        return 1;
      }
      (setup.backend == "bailey" ? bailey : noop).add(result);
    }
  }

  const int live = sessions + setup.sequential_sessions;
  const auto per_session = [live](const Totals& t) {
    return static_cast<double>(median_of(t.live) - median_of(t.idle)) / live;
  };
  std::printf(
      "%d sessions opened one at a time, then %d at once (%d live); %d round(s) per backend; "
      "latencies pooled over rounds, memory the median round\n\n",
      setup.sequential_sessions, sessions, live, rounds);
  std::printf("%-44s %12s %12s %8s\n", "", "bailey", "noop", "ratio");
  const auto row_ms = [](const char* what, double a, double b) {
    std::printf("%-44s %9.1f ms %9.1f ms %8.2f\n", what, a, b, ratio(a, b));
  };
  const auto row_kib = [](const char* what, double a, double b) {
    std::printf("%-44s %8.0f KiB %8.0f KiB %8.2f\n", what, a, b, ratio(a, b));
  };
  row_ms("one at a time: message -> agent text, median", percentile(bailey.quiet_opening, 0.5),
         percentile(noop.quiet_opening, 0.5));
  row_ms("one at a time: message -> agent text, p95", percentile(bailey.quiet_opening, 0.95),
         percentile(noop.quiet_opening, 0.95));
  row_ms("all at once: message -> agent text, median", percentile(bailey.opening, 0.5),
         percentile(noop.opening, 0.5));
  row_ms("all at once: message -> agent text, p95", percentile(bailey.opening, 0.95),
         percentile(noop.opening, 0.95));
  row_ms("reply in a live thread -> agent text, median", percentile(bailey.follow_up, 0.5),
         percentile(noop.follow_up, 0.5));
  row_ms("reply in a live thread -> agent text, p95", percentile(bailey.follow_up, 0.95),
         percentile(noop.follow_up, 0.95));
  // The aim issue 19 set; bench_daemon_memory shows where the idle daemon's memory goes.
  row_kib("daemon RSS idle (aim <= 16384 KiB)", static_cast<double>(median_of(bailey.idle)),
          static_cast<double>(median_of(noop.idle)));
  row_kib("daemon RSS per live session", per_session(bailey), per_session(noop));
  row_kib("daemon peak RSS (VmHWM)", static_cast<double>(median_of(bailey.peak)),
          static_cast<double>(median_of(noop.peak)));
  row_kib("sandbox-side RSS per session (below daemon)",
          static_cast<double>(median_of(bailey.sandbox_side)) / live,
          static_cast<double>(median_of(noop.sandbox_side)) / live);
  return 0;
}

int main(int argc, char** argv) {
  return errand::test::run_as_test_account([&] { return benchmark(argc, argv); });
}
