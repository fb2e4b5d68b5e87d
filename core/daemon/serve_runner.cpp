#include "core/daemon/serve_runner.hpp"

#include "core/daemon/daemon_runtime.hpp"
#include "core/daemon/exit_codes.hpp"
#include "core/daemon/serve_runner_settings.hpp"
#include "core/daemon/start_steps.hpp"
#include "core/remote/jobs/blob_store.hpp"
#include "core/remote/jobs/jobs_db.hpp"
#include "core/remote/runner/job_reconcile.hpp"
#include "core/remote/serve/job_scheduler.hpp"
#include "core/remote/serve/runner_listener.hpp"

#include <array>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <csignal>
#include <memory>

namespace errand::daemon {

namespace {

// Time for jobs killed at the stop to record their end before the io_context stops.
constexpr auto kStopGrace = std::chrono::seconds(1);

sdk::Result<void> open_runner_receipts(Start& s) {
  // The plugin host records what backends report; the runner's records are its own.
  auto receipts = receipts::ReceiptsDb::open(s.settings.state_dir / "receipts.db",
                                             s.rt.logging.logger("receipts"));
  if (!receipts) return sdk::make_error(receipts.error().message, sdk::Error::Kind::refused);
  s.rt.receipts = std::move(*receipts);
  return {};
}

constexpr std::array kRunnerStartSteps{
    StartStep{"load the configuration", load_configuration},
    StartStep{"raise the open-files limit", raise_open_files_limit},
    StartStep{"take the runner's state directory", take_state_directory},
    StartStep{"open the runner's receipts", open_runner_receipts},
    StartStep{"probe the sandbox backend", probe_sandbox},
    StartStep{"refuse on an enforcement gap", refuse_enforcement_gaps},
};

const char* network_name(sdk::NetworkMode mode) {
  switch (mode) {
    case sdk::NetworkMode::none: return "none";
    case sdk::NetworkMode::restricted: return "restricted";
    case sdk::NetworkMode::open: return "open";
  }
  return "unknown";
}

void log_reconcile(spdlog::logger& log, const remote::ReconcileReport& report) {
  for (const auto& job : report.jobs)
    log.info("after the last stop: job {} {}: {}{}", job.id, job.adopted ? "adopted" : "lost",
             job.detail, job.cleanup_detail.empty() ? "" : "; " + job.cleanup_detail);
  for (const auto& detail : report.sweep.details) log.info("orphan sweep: {}", detail);
  if (!report.sweep.complete) log.warn("the orphan sweep could not remove everything it found");
  for (const auto& problem : report.problems) log.warn("jobs.db after the last stop: {}", problem);
}

}  // namespace

int serve_runner(const RunEnvironment& env, std::ostream& out) {
  Runtime rt;
  Start start(rt, env, out);
  RunnerSettings runner;
  for (const auto& step : kRunnerStartSteps) {
    auto done = step.run(start);
    if (done && step.run == load_configuration) {
      // From here on the runner's state directory is stateDir/runner: its lock, its plugin
      // state and what the backend's sweep looks at are apart from `errand run`'s.
      runner = runner_settings_from(rt.config.effective);
      start.settings.state_dir = runner.state_dir;
    }
    if (!done) {
      rt.log->error("{}", done.error().message);
      rt.log->debug("the start stopped at: {}", step.name);
      return exit_code_of(done.error());
    }
  }
  auto& backend = *rt.host->backend();

  auto jobs = remote::JobsDb::open(runner.state_dir / "jobs.db");
  if (!jobs) {
    rt.log->error("{}", jobs.error().message);
    return kExitRefused;
  }
  auto blobs = remote::BlobStore::open(runner.state_dir / "blobs");
  if (!blobs) {
    rt.log->error("{}", blobs.error().message);
    return kExitRefused;
  }
  log_reconcile(*rt.log, remote::reconcile_after_restart(backend, **jobs, runner.state_dir));

  // Jobs get no network until the runner runs a broker for them: stricter than configured,
  // never weaker.
  auto policy = *start.policy;
  rt.log->info(
      "jobs run with no network (sandbox.network is \"{}\" for sessions): the runner runs "
      "no egress broker for jobs yet",
      network_name(policy.network));
  policy.network = sdk::NetworkMode::none;

  boost::asio::thread_pool blocking(1);
  remote::JobRunnerParts parts{.backend = backend,
                               .backend_name = start.report.backend,
                               .enforcement = start.report.summary + "; jobs get no network",
                               .policy = std::move(policy),
                               .broker_socket = std::nullopt,
                               .env = {},
                               .jobs = **jobs,
                               .blobs = **blobs,
                               .state_dir = runner.state_dir,
                               .blocking = blocking};
  auto scheduler = std::make_unique<remote::JobScheduler>(rt.io.get_executor(), std::move(parts),
                                                          runner.scheduler);
  auto listener = remote::RunnerListener::open(*scheduler, runner.socket);
  if (!listener) {
    rt.log->error("runner.socket {}: {}", runner.socket.string(), listener.error().message);
    return kExitRefused;
  }
  (*listener)->start();

  boost::asio::signal_set signals(rt.io, SIGINT, SIGTERM);
  boost::asio::steady_timer grace(rt.io);
  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    rt.log->info("stopping (signal {}): the listener, then the jobs", signal);
    boost::asio::post(scheduler->strand(), [&] {
      (*listener)->close();
      scheduler->stop();
      grace.expires_after(kStopGrace);
      grace.async_wait([&](const boost::system::error_code&) {
        rt.host->stop_all();
        rt.io.stop();
      });
    });
  });

  rt.log->info("errand {} serving jobs on {} with the {} sandbox backend", ERRAND_VERSION,
               runner.socket.string(), start.report.backend);
  int exit_code = kExitStopped;
  try {
    rt.io.run();
  } catch (const std::exception& e) {
    rt.log->critical("the runner failed while serving: {}", e.what());
    exit_code = kExitRuntimeFailure;
  }
  listener->reset();
  scheduler.reset();
  blocking.join();
  rt.log->info("stopped");
  return exit_code;
}

}  // namespace errand::daemon
