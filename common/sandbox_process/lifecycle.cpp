#include "common/sandbox_process/lifecycle.hpp"

#include <csignal>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "common/stop_deadline.hpp"

namespace errand::sandbox_process {

using asio::use_awaitable;

Lifecycle::Lifecycle(asio::strand<asio::any_io_executor> strand,
                     std::shared_ptr<spdlog::logger> log, std::string who, ProcessView view,
                     std::optional<common::DiskWatch> disk, std::chrono::milliseconds grace)
    : strand_(std::move(strand)),
      log_(std::move(log)),
      who_(std::move(who)),
      view_(view),
      disk_(std::move(disk)),
      grace_(grace),
      changed_(strand_, asio::steady_timer::time_point::max()),
      disk_timer_(strand_) {}

Lifecycle::~Lifecycle() = default;

void Lifecycle::start() {
  asio::co_spawn(
      strand_, [self = shared_from_this()] { return self->watch(); }, asio::detached);
  if (disk_)
    asio::co_spawn(
        strand_, [self = shared_from_this()] { return self->watch_disk(); }, asio::detached);
}

asio::awaitable<void> Lifecycle::wait_change() {
  boost::system::error_code ignored;
  co_await changed_.async_wait(asio::redirect_error(use_awaitable, ignored));
}

asio::awaitable<void> Lifecycle::watch() {
  auto exit = co_await await_exit();
  // From here the end is being described: a measurement still under way must not stop it, and a
  // stop waiting for the exit goes on at once.
  exited_ = true;
  disk_timer_.cancel();
  notify();
  describe_end(exit);
  const sdk::Result<void> cleaned = co_await clean_up();
  exit.cleanup_complete = cleaned.has_value();
  if (!cleaned) exit.cleanup_detail = cleaned.error().message;
  result_ = std::move(exit);
  ended_ = true;
  if (log_) {
    if (result_->cleanup_complete)
      log_->info("{}: sandbox ended: {}", who_, result_->detail);
    else
      log_->warn("{}: sandbox ended: {}; cleanup incomplete: {}", who_, result_->detail,
                 result_->cleanup_detail);
  }
  notify();
}

void Lifecycle::describe_end(sdk::ExitInfo& exit) {
  if (stop_requested_ && exit.detail.empty()) exit.detail = "stopped";
  if (forced_cause_ != sdk::LimitCause::none) {
    exit.limit = forced_cause_;
    exit.detail = forced_detail_ + (exit.detail.empty() ? "" : "; " + exit.detail);
  }
}

asio::awaitable<void> Lifecycle::watch_disk() {
  const auto over = co_await disk_->run(disk_timer_, [this] { return exited_; });
  if (over) co_await stop(grace_, sdk::LimitCause::disk, *over);
}

asio::awaitable<sdk::ExitInfo> Lifecycle::finished() {
  co_await asio::dispatch(strand_, use_awaitable);
  while (!result_) co_await wait_change();
  co_return *result_;
}

asio::awaitable<sdk::ExitInfo> Lifecycle::stop(std::chrono::milliseconds grace,
                                               sdk::LimitCause cause, std::string detail) {
  co_await asio::dispatch(strand_, use_awaitable);
  if (!result_ && !stop_requested_ && !exited_) {
    stop_requested_ = true;
    forced_cause_ = cause;
    forced_detail_ = std::move(detail);
    if (auto gave_up = co_await stop_steps(grace)) {
      gave_up_ = std::move(gave_up);
      notify();
    }
  }
  while (!result_ && !gave_up_) co_await wait_change();
  co_return result_ ? *result_ : *gave_up_;
}

asio::awaitable<bool> Lifecycle::holds_within(std::chrono::milliseconds limit,
                                              std::function<bool()> done) {
  co_return co_await common::wait_done_within(changed_, limit, std::move(done));
}

asio::awaitable<bool> Lifecycle::exited_within(std::chrono::milliseconds limit) {
  std::function<bool()> exited = [this] { return exited_; };
  co_return co_await holds_within(limit, std::move(exited));
}

asio::awaitable<bool> Lifecycle::ended_within(std::chrono::milliseconds limit) {
  std::function<bool()> ended = [this] { return result_.has_value(); };
  co_return co_await holds_within(limit, std::move(ended));
}

void Lifecycle::warn_overrun(std::string_view step, std::chrono::milliseconds deadline,
                             std::string_view escalation) const {
  if (log_) log_->warn("{}", common::stop_overrun_warning(who_, step, deadline, escalation));
}

sdk::ExitInfo Lifecycle::gave_up_exit(std::string what) const {
  sdk::ExitInfo gave_up;
  gave_up.signal = SIGKILL;
  // A stop forced by a limit keeps its cause, as the sandbox's own end would (describe_end).
  gave_up.limit = forced_cause_;
  gave_up.detail = (forced_detail_.empty() ? std::string() : forced_detail_ + "; ") + what;
  return gave_up;
}

}  // namespace errand::sandbox_process
