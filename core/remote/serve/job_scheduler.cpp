#include "core/remote/serve/job_scheduler.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value_from.hpp>
#include <chrono>
#include <exception>

#include "core/remote/serve/request_digest.hpp"

namespace errand::remote {

namespace asio = boost::asio;

namespace {

// How often a starting job's row is looked at until it leaves the queue: the execution marks
// it running only once its workspace is made, and says nothing when it does.

}  // namespace

JobScheduler::JobScheduler(asio::any_io_executor executor, JobRunnerParts parts,
                           SchedulerConfig config)
    : strand_(asio::make_strand(std::move(executor))),
      parts_(std::move(parts)),
      config_(std::move(config)) {}

JobScheduler::~JobScheduler() = default;

sdk::Result<Admission> JobScheduler::admit(const PeerIdentity& caller, const wire::Admit& admit,
                                           std::optional<Manifest> manifest) {
  if (admit.snapshot != manifest.has_value())
    return sdk::make_error("job " + admit.job + ": a snapshot job needs its manifest, and only it");
  std::optional<std::string> tree_hash;
  if (manifest) tree_hash = manifest_hash(*manifest);
  AdmitRequest request;
  request.id = admit.job;
  request.digest = admit_request_digest(admit, tree_hash);
  request.caller_uid = caller.uid;
  request.caller_name = caller.name;
  request.argv_json = boost::json::serialize(boost::json::value_from(admit.argv));
  request.workdir = admit.workdir;
  request.manifest_hash = tree_hash;
  if (manifest) {
    request.files = manifest->file_count();
    request.bytes = manifest->total_bytes();
  }
  request.now = JobClock::now();
  auto admission = parts_.jobs.admit(request, config_.bounds);
  if (!admission || admission->existing) return admission;

  Pending pending;
  pending.request.id = admit.job;
  pending.request.argv = admit.argv;
  pending.request.env = admit.env;
  pending.request.workdir = admit.workdir;
  // Stdin stays open for the caller (or a later attach) to feed or close.
  pending.request.forward_stdin = true;
  if (manifest) pending.pins.emplace(parts_.blobs.pin(*manifest));
  pending.request.manifest = std::move(manifest);
  queued_.emplace(admit.job, std::move(pending));
  changed();
  start_ready();
  return admission;
}

std::shared_ptr<JobExecution> JobScheduler::execution(const std::string& id) const {
  const auto found = running_.find(id);
  return found == running_.end() ? nullptr : found->second;
}

void JobScheduler::watch(const std::shared_ptr<asio::steady_timer>& timer) {
  std::erase_if(watchers_, [](const auto& weak) { return weak.expired(); });
  watchers_.push_back(timer);
}

void JobScheduler::changed() {
  ++generation_;
  for (const auto& weak : watchers_)
    if (auto timer = weak.lock()) timer->cancel();
}

void JobScheduler::start_ready() {
  while (!stopped_ && running_.size() < config_.bounds.max_running) {
    auto next = parts_.jobs.next_to_start(config_.bounds.max_running);
    if (!next || !*next) return;
    const std::string id = **next;
    // The oldest queued job is still being started (its workspace is being made); left_queue
    // calls again once it has.
    if (running_.contains(id)) return;
    auto found = queued_.find(id);
    if (found == queued_.end()) {
      // Admitted by a runner process before this one: its request (env, tree) is gone with it.
      (void)parts_.jobs.mark_lost(id, "the runner restarted before the job could start",
                                  JobClock::now());
      changed();
      continue;
    }
    Pending pending = std::move(found->second);
    queued_.erase(found);
    start(id, std::move(pending));
  }
}

void JobScheduler::start(std::string id, Pending pending) {
  if (pending.pins) starting_pins_.emplace(id, std::move(*pending.pins));
  // Made on the scheduler's strand, so the job's strand runs inside it (see the header).
  auto job = JobExecution::create(strand_, parts_, std::move(pending.request));
  // The job's strand runs inside the scheduler's, so these run as the scheduler's own handlers.
  job->set_listener({.started = [this, id] { left_queue(id); },
                     .launched = [this, id] { deliver_deferred_signal(id); },
                     .output = [this](std::uint64_t) { changed(); },
                     .ended = {}});
  running_.emplace(id, job);
  asio::co_spawn(job->strand(), job->run(), [this, id](std::exception_ptr, JobOutcome) {
    asio::post(strand_, [this, id] { finished(id); });
  });
}

void JobScheduler::left_queue(const std::string& id) {
  // The workspace is made: its blobs may be collected again, and the queue has moved.
  starting_pins_.erase(id);
  changed();
  start_ready();
}

void JobScheduler::deliver_deferred_signal(const std::string& id) {
  const auto deferred = deferred_signals_.find(id);
  if (deferred == deferred_signals_.end()) return;
  const auto signal_to_send = deferred->second;
  deferred_signals_.erase(deferred);
  (void)signal(id, signal_to_send);
}

void JobScheduler::finished(const std::string& id) {
  running_.erase(id);
  deferred_signals_.erase(id);
  starting_pins_.erase(id);
  changed();
  start_ready();
}

asio::awaitable<sdk::Result<void>> JobScheduler::write_stdin(std::string id, std::string data) {
  auto job = execution(id);
  if (!job) co_return sdk::make_error("job " + id + " is not running", sdk::Error::Kind::not_found);
  if (data.empty()) {
    job->close_stdin();
    co_return sdk::Result<void>{};
  }
  auto written = co_await job->write_stdin(std::move(data));
  co_return written;
}

sdk::Result<void> JobScheduler::signal(const std::string& id, wire::JobSignal signal) {
  // The job's members are called here, on the scheduler's strand, which its strand runs inside.
  if (auto job = execution(id)) {
    if (!job->running()) {
      // Still being started (or already ending): kept until its process runs (launched).
      deferred_signals_[id] = signal;
      return {};
    }
    switch (signal) {
      case wire::JobSignal::interrupt: return job->interrupt();
      case wire::JobSignal::terminate: return job->terminate();
      case wire::JobSignal::kill: job->kill(); return {};
    }
  }
  if (auto found = queued_.find(id); found != queued_.end()) {
    queued_.erase(found);
    auto lost = parts_.jobs.mark_lost(
        id,
        "it was signalled (" + std::string(wire::job_signal_name(signal)) +
            ") while it waited in the queue, so it was taken off the queue and never ran",
        JobClock::now());
    changed();
    start_ready();
    return lost;
  }
  return sdk::make_error("job " + id + " is neither running nor queued here",
                         sdk::Error::Kind::not_found);
}

void JobScheduler::stop() {
  stopped_ = true;
  for (const auto& [id, job] : running_) job->kill();
}

}  // namespace errand::remote
