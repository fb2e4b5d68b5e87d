// The idle daemon's resident memory, quickly: the same daemon bench_sessions measures (bailey,
// the broker and the Discord plugin against the fake Discord server) started several times,
// each read once ready and idle, against the same daemon on sandbox-noop started in between;
// then how it splits (anonymous memory, mapped files, threads) and the mappings that hold the
// most, so a change to what the daemon holds can be judged in a minute rather than a full
// bench_sessions run. Last, whether it comes back near idle after sessions ran and ended.
//
//   bench_daemon_memory [starts] [sessions]   (defaults 5 and 3; started as root, it runs as
//                                              the test account, as the daemon is deployed)
//   BENCH_SMAPS=<file> bench_daemon_memory    also writes the last idle bailey daemon's smaps
//   BENCH_DAEMON_ENV="NAME=value ..."          adds to the daemon's environment, for an
//                                              experiment such as MALLOC_ARENA_MAX=1
//   BENCH_HOLD=<seconds> bench_daemon_memory  keeps that daemon idle so long, its pid printed,
//                                              for gdb, heaptrack or perf to look at

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_daemon.hpp"
#include "process_memory.hpp"
#include "tests/bench/table/bench_table.hpp"
#include "tests/support/program_copy.hpp"
#include "tests/support/test_account.hpp"
#include "tests/support/test_paths.hpp"

namespace {

using namespace std::chrono_literals;
using errand::bench::BenchDaemon;
using errand::bench::ResidentParts;

// The aim issue 19 set for the idle daemon.
constexpr long kIdleAimKib = 16 * 1024;
constexpr std::size_t kMappingsShown = 16;

long median_of(std::vector<long> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

struct Samples {
  std::vector<long> total, anon, file, proportional, threads;
  std::vector<long> after_total, after_anon, after_file;  // the last start, once sessions ended
  void add(const ResidentParts& parts) {
    total.push_back(parts.total_kib);
    anon.push_back(parts.anon_kib);
    file.push_back(parts.file_kib);
    proportional.push_back(parts.proportional_kib);
    threads.push_back(parts.threads);
  }
};

int count_of(const std::string& text, const std::string& needle) {
  int count = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

// Opens a session, waits for the agent's answer in its thread, stops it with !stop and waits
// until the daemon says it ended. An empty string when all of that happened.
std::string run_one_session(BenchDaemon& daemon, int index) {
  auto& discord = daemon.discord();
  const int ended_before = count_of(daemon.err(), ": ended (");
  errand::fake_discord::UserPost post;
  post.author_id = std::string(errand::bench::kBenchUser);
  post.content = "provider hello from session " + std::to_string(index);
  const auto thread = discord.post_user_message(post);
  const auto answered = [&] {
    for (const auto& message : discord.messages(thread))
      if (message.by_bot && message.content.find("Hello") != std::string::npos) return true;
    return false;
  };
  if (!errand::fake_discord::FakeDiscord::wait_until(answered, 60s))
    return "session " + std::to_string(index) + " showed no agent text within 60 s";
  errand::fake_discord::UserPost stop;
  stop.author_id = post.author_id;
  stop.thread_id = thread;
  stop.content = "!stop";
  discord.post_user_message(stop);
  const auto ended = [&] { return count_of(daemon.err(), ": ended (") > ended_before; };
  if (!errand::fake_discord::FakeDiscord::wait_until(ended, 60s))
    return "session " + std::to_string(index) + " did not end within 60 s of !stop";
  return {};
}

void print_mappings(int pid) {
  std::printf("\nlargest resident mappings of one idle bailey daemon (files summed):\n");
  std::printf("%10s %10s %5s  %s\n", "resident", "mapped", "maps", "what");
  for (const auto& m : errand::bench::largest_mappings(pid, kMappingsShown))
    std::printf("%6ld KiB %6ld KiB %5d  %s\n", m.resident_kib, m.size_kib, m.count,
                m.name.empty() ? "[anonymous]" : m.name.c_str());
}

int benchmark(int argc, char** argv) {
  const int starts = argc > 1 ? std::atoi(argv[1]) : 5;
  const int sessions = argc > 2 ? std::atoi(argv[2]) : 3;
  if (starts < 1 || sessions < 0) {
    std::fprintf(stderr, "usage: bench_daemon_memory [starts >= 1] [sessions >= 0]\n");
    return 2;
  }
  errand::bench::DaemonSetup setup;
  setup.sessions = 2;
  setup.live_sessions = 2;
  setup.build_dir = errand::test::build_dir();
  setup.noop_plugins = errand::test::build_path(ERRAND_NOOP_PLUGIN_DIR);
  setup.agent = errand::test::copy_outside_tmp(setup.build_dir / "tests/fakes/bin/fake-acp-agent",
                                               "errand-bench-agent");
  Samples bailey, noop;
  for (int start = 0; start < starts; ++start) {
    for (const char* backend : {"bailey", "noop"}) {
      setup.backend = backend;
      const bool is_bailey = setup.backend == "bailey";
      BenchDaemon daemon(setup);
      if (!daemon.problem().empty()) {
        std::fprintf(stderr, "start %d on %s failed: %s\n", start + 1, backend,
                     daemon.problem().c_str());
        return 1;
      }
      // As bench_sessions: a second for what the daemon does just after it is ready.
      std::this_thread::sleep_for(1s);
      auto& samples = is_bailey ? bailey : noop;
      samples.add(errand::bench::resident_parts(daemon.pid()));
      const bool last = start + 1 == starts;
      if (last && is_bailey) {
        print_mappings(daemon.pid());
        // Streamed: /proc files report a size of 0, which a file copy would trust.
        if (const char* copy = std::getenv("BENCH_SMAPS")) {
          std::ifstream in("/proc/" + std::to_string(daemon.pid()) + "/smaps");
          std::ofstream out(copy);
          out << in.rdbuf();
          if (!out) std::fprintf(stderr, "BENCH_SMAPS: could not write %s\n", copy);
        }
        if (const char* hold = std::getenv("BENCH_HOLD")) {
          std::fprintf(stderr, "daemon pid %d held idle for %s s\n", daemon.pid(), hold);
          std::this_thread::sleep_for(std::chrono::seconds(std::atoi(hold)));
        }
      }
      if (!last || sessions == 0) continue;
      for (int i = 0; i < sessions; ++i) {
        if (auto problem = run_one_session(daemon, i); !problem.empty()) {
          std::fprintf(stderr, "%s on %s\n%s\n", problem.c_str(), backend, daemon.err().c_str());
          return 1;
        }
      }
      std::this_thread::sleep_for(1s);
      const auto after = errand::bench::resident_parts(daemon.pid());
      samples.after_total.push_back(after.total_kib);
      samples.after_anon.push_back(after.anon_kib);
      samples.after_file.push_back(after.file_kib);
    }
  }
  std::printf("\n%d start(s) per backend, medians; read 1 s after the chat connection is ready\n",
              starts);
  std::printf("%-40s %10s %10s %6s\n", "", "bailey", "noop", "ratio");
  const auto row = [](const char* what, long a, long b) {
    std::printf("%-40s %6ld KiB %6ld KiB %6.2f\n", what, a, b,
                b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0);
  };
  row("daemon RSS idle (VmRSS)", median_of(bailey.total), median_of(noop.total));
  row("  anonymous (RssAnon)", median_of(bailey.anon), median_of(noop.anon));
  row("  mapped files (RssFile)", median_of(bailey.file), median_of(noop.file));
  row("PSS (shared pages in part)", median_of(bailey.proportional), median_of(noop.proportional));
  std::printf("%-40s %10ld %10ld\n", "threads", median_of(bailey.threads), median_of(noop.threads));
  if (sessions > 0) {
    std::printf("after %d session(s) ran and ended (last start):\n", sessions);
    row("daemon RSS (VmRSS)", median_of(bailey.after_total), median_of(noop.after_total));
    row("  anonymous (RssAnon)", median_of(bailey.after_anon), median_of(noop.after_anon));
    row("  mapped files (RssFile)", median_of(bailey.after_file), median_of(noop.after_file));
  }
  // The performance table's row: the aim is an absolute figure, so the peer, the same daemon
  // on sandbox-noop started in between, is named in the measure.
  constexpr double kKibPerMib = 1024;
  const double noop_mib = static_cast<double>(median_of(noop.total)) / kKibPerMib;
  errand::bench::print_table_row(
      {.measure = "daemon RSS idle, bailey (" + fmt::format("{:.1f}", noop_mib) +
                  " MiB on sandbox-noop, same run)",
       .unit = "MiB",
       .errand = static_cast<double>(median_of(bailey.total)) / kKibPerMib,
       .peer_name = {},
       .peer = 0,
       .better = errand::bench::Better::lower,
       .aim = static_cast<double>(kIdleAimKib) / kKibPerMib});
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return errand::test::run_as_test_account([&] { return benchmark(argc, argv); });
}
