// Measures how long a fully confined bailey sandbox takes to start, run `true` and be cleaned
// up, through BaileyBackend::launch() exactly as the daemon calls it, against bubblewrap doing
// the same with comparable namespaces, and a podman session (PodmanBackend::launch(): container
// started, `true`, container removed) in the first 20 rounds, interleaving them so all see the
// same machine. Each podman round also runs the backend's steps one at a time with its own plan
// (podman create; podman start --attach until `true` has exited; podman rm), and errand-relay
// alone on the host against `true` without it, so the report says where the time goes.
//
// The first 10 rounds also time sessions to the agent's first byte (it prints one byte and
// exits): bailey, podman, and incus from the image, from a golden copy and, for comparison, the
// start of a stopped instance, with incus's requests also sent one at a time (incus_bench.hpp).
//
//   bench_launch [runs] [--bwrap-only]
//                           (default 30 runs; needs unprivileged user namespaces, bwrap, and for
//                           podman the test account's rootless podman with the test image
//                           scripts/setup builds; for incus the real incusd with the errand
//                           project and the errand-test image; started as root, it runs as the
//                           test account. --bwrap-only leaves podman, incus and the first-byte
//                           rounds out: bailey against bwrap and bailey's phases, for iterating)

#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>
#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/sandbox/policy_from_config.hpp"
#include "plugins/sandbox-bailey/impl/bailey_backend.hpp"
#include "plugins/sandbox-podman/impl/containers_conf.hpp"
#include "plugins/sandbox-podman/impl/podman_backend.hpp"
#include "tests/bench/launch/bailey_parts.hpp"
#include "tests/bench/launch/bench_measure.hpp"
#include "tests/bench/launch/first_byte.hpp"
#include "tests/bench/launch/incus_bench.hpp"
#include "tests/bench/launch/incus_report.hpp"
#include "tests/bench/table/bench_table.hpp"
#include "tests/support/host_parts.hpp"
#include "tests/support/session_images.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_account.hpp"
#include "tests/support/test_paths.hpp"

namespace fs = std::filesystem;
using errand::bench::Clock;
using errand::bench::median;
using errand::bench::ms_since;

namespace {

constexpr int kPodmanRuns = 20;
constexpr int kFirstByteRuns = 10;
constexpr const char* kPodmanImage = errand::test::kPodmanAgentImage;

// One bwrap run of `true` with every namespace unshared, the system read-only, the session's
// directories writable, a fresh /proc, a minimal /dev and a private /tmp.
bool run_bwrap(const fs::path& project, const fs::path& state) {
  std::vector<std::string> args = {"bwrap",
                                   "--unshare-all",
                                   "--die-with-parent",
                                   "--new-session",
                                   "--clearenv",
                                   "--ro-bind",
                                   "/usr",
                                   "/usr",
                                   "--symlink",
                                   "usr/lib",
                                   "/lib",
                                   "--symlink",
                                   "usr/lib64",
                                   "/lib64",
                                   "--symlink",
                                   "usr/bin",
                                   "/bin",
                                   "--symlink",
                                   "usr/sbin",
                                   "/sbin",
                                   "--ro-bind",
                                   "/etc/ld.so.cache",
                                   "/etc/ld.so.cache",
                                   "--ro-bind",
                                   "/etc/passwd",
                                   "/etc/passwd",
                                   "--ro-bind",
                                   "/etc/ssl",
                                   "/etc/ssl",
                                   "--bind",
                                   project.string(),
                                   "/workspace",
                                   "--bind",
                                   state.string(),
                                   "/state",
                                   "--proc",
                                   "/proc",
                                   "--dev",
                                   "/dev",
                                   "--tmpfs",
                                   "/tmp",
                                   "--chdir",
                                   "/workspace",
                                   "--setenv",
                                   "PATH",
                                   "/usr/bin:/bin",
                                   "/bin/true"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  char* envp[] = {nullptr};
  pid_t pid = -1;
  if (::posix_spawnp(&pid, "bwrap", nullptr, nullptr, argv.data(), envp) != 0) return false;
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Runs argv with no environment to its end; true when it exited 0.
bool run_program(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  char* envp[] = {nullptr};
  pid_t pid = -1;
  if (::posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), envp) != 0) return false;
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The steps PodmanBackend::launch() and ContainerState take, timed one by one.
struct PodmanPhases {
  std::vector<double> create_ms, start_ms, rm_ms;
};

bool time_podman_phases(const errand::podman::PodmanEnvironment& env,
                        const errand::podman::RunHost& host, const errand::sdk::LaunchSpec& spec,
                        PodmanPhases& phases) {
  namespace pm = errand::podman;
  const auto plan = pm::podman_run_plan(spec, host);
  if (!plan) {
    std::fprintf(stderr, "podman phases: %s\n", plan.error().message.c_str());
    return false;
  }
  const auto created_at = Clock::now();
  const auto created =
      pm::run_podman(env, pm::podman_create_args(*plan), std::chrono::seconds(60), plan->variables);
  phases.create_ms.push_back(ms_since(created_at));
  if (!created || created->exit_code != 0) {
    std::fprintf(stderr, "podman create: %s\n",
                 created ? pm::failure_text(*created).c_str() : created.error().message.c_str());
    return false;
  }
  const auto started_at = Clock::now();
  auto running = pm::start_podman(env, pm::podman_start_args(spec.session_id), {});
  bool ok = running.has_value();
  if (running) {
    ::close(running->stdin_fd);
    running->stdin_fd = -1;
    int status = 0;
    ::waitpid(running->pid, &status, 0);
    phases.start_ms.push_back(ms_since(started_at));
    ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    running->close_all();
  }
  const auto removed_at = Clock::now();
  const auto removed = pm::remove_container(env, pm::container_name(spec.session_id));
  phases.rm_ms.push_back(ms_since(removed_at));
  return ok && removed.first;
}

}  // namespace

// The benchmark itself; main runs it as the test account, as the daemon is deployed.
static int benchmark(int argc, char** argv) {
  int runs = 30;
  bool bwrap_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--bwrap-only")
      bwrap_only = true;
    else if (const int n = std::atoi(arg.c_str()); n > 0)
      runs = n;
    else {
      std::fprintf(stderr, "usage: bench_launch [runs] [--bwrap-only]\n");
      return 2;
    }
  }
  fs::path root;
  try {
    root = errand::test::make_temp_dir("/tmp", "bench-launch-");
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  const auto state_dir = root / "state";
  const auto projects = root / "projects";
  fs::create_directories(state_dir / "brokers");
  fs::create_directories(projects);
  const auto broker_path = state_dir / "brokers" / "bench.sock";
  const int broker = errand::bench::listen_unix(broker_path);
  if (broker < 0) {
    std::fprintf(stderr, "bench_launch: could not listen on %s\n", broker_path.c_str());
    return 1;
  }

  boost::asio::io_context io;
  errand::test::HostParts parts;
  const auto host = parts.services(
      io.get_executor(),
      std::make_shared<spdlog::logger>("bench", std::make_shared<spdlog::sinks::null_sink_mt>()),
      boost::json::object{{"projectRoot", projects.string()}, {"stateDir", state_dir.string()}},
      errand::test::build_path(ERRAND_BAILEY_PLUGIN), state_dir);
  errand::bailey::BaileyBackend backend(host);
  const auto policy = errand::sandbox::policy_from_config(host.config);
  // podman and incus sit out a --bwrap-only run; bailey against bwrap is what is iterated on.
  std::optional<errand::podman::PodmanBackend> podman;
  std::optional<errand::podman::PodmanEnvironment> podman_env;
  std::optional<errand::podman::RunHost> run_host;
  if (!bwrap_only) {
    const auto podman_host = parts.services(
        io.get_executor(),
        std::make_shared<spdlog::logger>("bench", std::make_shared<spdlog::sinks::null_sink_mt>()),
        boost::json::object{{"projectRoot", projects.string()},
                            {"stateDir", state_dir.string()},
                            {"sandbox", boost::json::object{{"image", kPodmanImage}}}},
        errand::test::build_path(ERRAND_PODMAN_PLUGIN), state_dir);
    podman.emplace(podman_host);
    // The same podman, containers.conf and run host the backend uses, for the phases.
    const auto conf = errand::podman::write_containers_conf(state_dir / "podman");
    if (!conf) {
      std::fprintf(stderr, "bench_launch: %s\n", conf.error().message.c_str());
      return 1;
    }
    podman_env = errand::podman::environment_for_this_account(*conf);
    auto learned = errand::podman::learn_run_host(*podman_env, kPodmanImage, state_dir / "podman",
                                                  errand::podman::daemon_label(state_dir));
    if (!learned) {
      std::fprintf(stderr, "bench_launch: %s\n", learned.error().message.c_str());
      return 1;
    }
    run_host = std::move(*learned);
    run_host->relay_program = errand::test::build_path(ERRAND_RELAY_PROGRAM);
  }

  int failures = 0;
  // incus needs its own session directories, under the project's restricted disk paths.
  auto incus = bwrap_only ? errand::sdk::Result<std::unique_ptr<errand::bench::IncusBench>>(
                                errand::sdk::make_error("--bwrap-only"))
                          : errand::bench::IncusBench::prepare(
                                io, errand::test::build_path(ERRAND_INCUS_PLUGIN));
  if (!incus && !bwrap_only) {
    std::fprintf(stderr, "bench_launch: incus left out: %s\n", incus.error().message.c_str());
    ++failures;
  }
  errand::bench::IncusFigures incus_figures;
  std::vector<errand::bench::SessionTimes> bailey_first, podman_first;
  int first_byte_failures = 0;

  // One session through a backend exactly as the daemon runs it; false when it did not end with
  // 0 and everything cleaned up. started_ms, when given, gets the time launch() took (until the
  // agent was running).
  const auto session = [&](errand::sdk::SandboxBackend& through,
                           const errand::sdk::LaunchSpec& spec, const char* name,
                           std::vector<double>* started_ms = nullptr) {
    bool ok = false;
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
          const auto start = Clock::now();
          auto launched = co_await through.launch(spec);
          if (started_ms != nullptr) started_ms->push_back(ms_since(start));
          if (!launched) {
            std::fprintf(stderr, "%s: %s\n", name, launched.error().message.c_str());
            co_return;
          }
          const auto exit = co_await (*launched)->wait();
          ok = exit.exit_code == 0 && exit.cleanup_complete;
          if (!ok)
            std::fprintf(stderr, "%s: %s %s\n", name, exit.detail.c_str(),
                         exit.cleanup_detail.c_str());
        },
        boost::asio::detached);
    io.restart();
    io.run();
    return ok;
  };

  std::vector<double> bailey_ms, bailey_started_ms, bwrap_ms, podman_ms, relay_ms, bare_ms;
  PodmanPhases phases;
  errand::bench::BaileyParts parts_alone;
  errand::common::DiskWalker walker;
  parts_alone.compile_filter();
  for (int i = 0; i < runs; ++i) {
    errand::sdk::LaunchSpec spec;
    spec.session_id = "bench-" + std::to_string(i);
    spec.project_dir = projects / spec.session_id;
    spec.state_dir = state_dir / "sessions" / spec.session_id;
    spec.record_dir = state_dir / "records" / spec.session_id;
    fs::create_directories(spec.project_dir);
    fs::create_directories(spec.state_dir / "home");
    spec.broker_socket = broker_path;
    spec.argv = {"true"};
    spec.policy = *policy;

    const auto start = Clock::now();
    const bool ok = session(backend, spec, "bailey", &bailey_started_ms);
    bailey_ms.push_back(ms_since(start));
    parts_alone.round(io, walker, spec, state_dir);

    const auto bw_start = Clock::now();
    const bool bw_ok = run_bwrap(spec.project_dir, spec.state_dir);
    bwrap_ms.push_back(ms_since(bw_start));
    if (!ok || !bw_ok) ++failures;

    if (!bwrap_only && i < kFirstByteRuns) {
      const auto one_byte = [&](errand::sdk::SandboxBackend& through, const char* what,
                                const char* label, std::vector<errand::bench::SessionTimes>& into) {
        auto printing = spec;
        printing.session_id = std::string("bench-") + what + "-" + std::to_string(i);
        printing.argv = errand::bench::kOneByteAgent;
        const auto times = errand::bench::time_session(io, through, printing, label);
        if (times.ok)
          into.push_back(times);
        else
          ++first_byte_failures;
      };
      one_byte(backend, "bailey-byte", "bailey to the first byte", bailey_first);
      one_byte(*podman, "podman-byte", "podman to the first byte", podman_first);
      if (incus) first_byte_failures += (*incus)->round(i, incus_figures);
    }

    if (bwrap_only || i >= kPodmanRuns) continue;
    auto in_container = spec;
    in_container.session_id = "bench-podman-" + std::to_string(i);
    const auto pm_start = Clock::now();
    const bool pm_ok = session(*podman, in_container, "podman");
    podman_ms.push_back(ms_since(pm_start));
    if (!pm_ok) ++failures;

    auto phased = spec;
    phased.session_id = "bench-phases-" + std::to_string(i);
    if (!time_podman_phases(*podman_env, *run_host, phased, phases)) ++failures;

    const auto relay_start = Clock::now();
    if (!run_program(
            {errand::test::build_path(ERRAND_RELAY_PROGRAM).string(), "--no-broker", "/bin/true"}))
      ++failures;
    relay_ms.push_back(ms_since(relay_start));
    const auto bare_start = Clock::now();
    if (!run_program({"/bin/true"})) ++failures;
    bare_ms.push_back(ms_since(bare_start));
  }
  ::close(broker);
  fs::remove_all(root);
  const auto incus_golden = incus ? (*incus)->golden() : std::string();
  if (incus) incus->reset();

  const double b = median(bailey_ms), w = median(bwrap_ms), p = median(podman_ms);
  std::printf("runs: %d, podman %zu (failed: %d)\n", runs, podman_ms.size(), failures);
  std::printf("bailey launch -> true -> cleaned up vs bwrap: %.2f ms vs %.2f ms, ratio %.2f\n", b,
              w, b / w);
  std::printf(
      "  bwrap: user, pid, mount, net, ipc, uts and cgroup namespaces; /usr and its links, "
      "ld.so.cache, passwd and /etc/ssl read-only; the session's two directories writable; "
      "fresh /proc, minimal /dev, private /tmp; no Landlock, seccomp, cgroup limits or disk "
      "budget\n");
  std::printf(
      "  bailey: the same namespaces but cgroup; the policy's system files read-only (%zu "
      "Landlock paths); resolv.conf and the broker socket; Landlock, the seccomp filter, cgroup "
      "limits and the disk budget\n",
      parts_alone.landlock_rules);
  const double started = median(bailey_started_ms);
  std::printf(
      "bailey phases, medians: launch() until the agent runs %.2f ms; from then to its exit "
      "with everything cleaned up %.2f ms\n",
      started, b - started);
  parts_alone.print();
  errand::bench::print_table_row({.measure = "bailey launch -> true -> cleaned up, vs bwrap",
                                  .unit = "ms",
                                  .errand = b,
                                  .peer_name = "bwrap",
                                  .peer = w,
                                  .better = errand::bench::Better::lower,
                                  .aim = 1.0});
  if (bwrap_only) return failures == 0 && parts_alone.failures == 0 ? 0 : 1;
  std::printf("podman (run -> true -> removed),       median: %.2f ms\n", p);
  std::printf("ratio podman/bailey: %.2f, podman/bwrap: %.2f\n", p / b, p / w);
  std::printf(
      "podman phases, medians: create %.2f ms, start --attach to exit %.2f ms, rm %.2f ms\n",
      median(phases.create_ms), median(phases.start_ms), median(phases.rm_ms));
  std::printf("errand-relay --no-broker true on the host: %.2f ms, true alone: %.2f ms\n",
              median(relay_ms), median(bare_ms));
  errand::bench::print_first_byte_rounds(std::min(runs, kFirstByteRuns), first_byte_failures,
                                         bailey_first, podman_first,
                                         incus ? &incus_figures : nullptr);
  if (incus)
    std::printf("incus golden %s: made at the start, deleted at the end\n", incus_golden.c_str());
  return failures == 0 && first_byte_failures == 0 && parts_alone.failures == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  return errand::test::run_as_test_account([&] { return benchmark(argc, argv); });
}
