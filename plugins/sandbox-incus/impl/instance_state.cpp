#include "plugins/sandbox-incus/impl/instance_state.hpp"

#include <csignal>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/verb.hpp>
#include <boost/json/object.hpp>

#include "common/stop_deadline.hpp"
#include "plugins/sandbox-incus/guest/exit_codes.hpp"
#include "plugins/sandbox-incus/impl/stop_deadlines.hpp"

namespace errand::incus {

using asio::use_awaitable;
namespace http = boost::beast::http;

namespace {

using Removal = std::pair<bool, std::string>;

bool is_not_found(const sdk::Error& e) {
  return e.kind == sdk::Error::Kind::not_found;
}

}  // namespace

sdk::ExitInfo exit_from_return(int code) {
  sdk::ExitInfo info;
  if (code > 128 && code < 128 + 65) {
    info.signal = code - 128;
    info.detail = "the agent was ended by signal " + std::to_string(code - 128);
    // errand-guest-init's RLIMIT_FSIZE is sandbox.fileMax, as bailey's and podman's.
    if (*info.signal == SIGXFSZ) {
      info.limit = sdk::LimitCause::file_size;
      info.detail = "a file passed the session's size limit (sandbox.fileMax); " + info.detail;
    }
    return info;
  }
  info.exit_code = code;
  if (code == guest::kInitFailed)
    info.detail =
        "errand-guest-init ended the session before or around the agent (its reason is "
        "on stderr)";
  if (code == guest::kNotRunnable)
    info.detail = "the agent command could not be started in the guest";
  if (code == guest::kNotFound) info.detail = "the agent command is not in the guest";
  return info;
}

asio::awaitable<std::pair<bool, std::string>> remove_instance(const IncusClient& client,
                                                              const std::string& name,
                                                              std::chrono::milliseconds deadline) {
  const std::string path = "/1.0/instances/" + name;
  // A forced stop ends every process at once; the instance is ephemeral, so Incus deletes it.
  // Named rather than temporaries: GCC 12 mishandles temporaries that live across a co_await.
  boost::json::value stop_body =
      boost::json::object{{"action", "stop"}, {"force", true}, {"timeout", -1}};
  std::string state_path = path + "/state";
  auto stopped =
      co_await client.request(http::verb::put, state_path, std::move(stop_body), deadline);
  if (!stopped && is_not_found(stopped.error())) co_return Removal{true, {}};
  auto still = co_await client.request(http::verb::get, path, std::nullopt, deadline);
  if (!still && is_not_found(still.error())) co_return Removal{true, {}};
  auto deleted = co_await client.request(http::verb::delete_, path, std::nullopt, deadline);
  if (deleted || is_not_found(deleted.error())) co_return Removal{true, {}};
  std::string left = "could not remove the instance " + name + ": " +
                     (stopped ? deleted.error().message : stopped.error().message);
  co_return Removal{false, std::move(left)};
}

InstanceState::InstanceState(asio::strand<asio::any_io_executor> strand,
                             std::shared_ptr<IncusClient> client,
                             std::shared_ptr<spdlog::logger> log, std::string name,
                             std::unique_ptr<ExecSession> exec, int pid,
                             std::optional<common::DiskWatch> disk, std::chrono::milliseconds grace)
    : strand_(std::move(strand)),
      client_(std::move(client)),
      log_(std::move(log)),
      name_(std::move(name)),
      exec_(std::move(exec)),
      pid_(pid),
      changed_(strand_, std::chrono::steady_clock::time_point::max()),
      disk_(std::move(disk)),
      disk_timer_(strand_),
      grace_(grace) {}

void InstanceState::start() {
  asio::co_spawn(
      strand_, [self = shared_from_this()] { return self->watch(); }, asio::detached);
  if (disk_)
    asio::co_spawn(
        strand_, [self = shared_from_this()] { return self->watch_disk(); }, asio::detached);
}

asio::awaitable<void> InstanceState::watch_disk() {
  const auto over = co_await disk_->run(disk_timer_, [this] { return exited_; });
  if (over) co_await stop(grace_, sdk::LimitCause::disk, *over);
}

asio::awaitable<void> InstanceState::wait_change() {
  boost::system::error_code ignored;
  co_await changed_.async_wait(asio::redirect_error(use_awaitable, ignored));
}

asio::awaitable<void> InstanceState::watch() {
  const sdk::Result<int> code = co_await exec_->wait();
  // From here the exit is being composed: a measurement still under way must not stop it.
  exited_ = true;
  disk_timer_.cancel();
  changed_.cancel();  // a stop waiting for this end goes on at once
  sdk::ExitInfo info;
  if (code) {
    info = exit_from_return(*code);
  } else {
    info.detail = "the agent's exit status was lost: " + code.error().message;
  }
  if (stop_requested_ && info.detail.empty()) info.detail = "stopped";
  if (forced_cause_ != sdk::LimitCause::none) {
    info.limit = forced_cause_;
    info.detail = forced_detail_ + (info.detail.empty() ? "" : "; " + info.detail);
  }
  const auto removed = co_await remove_instance(*client_, name_);
  info.cleanup_complete = removed.first;
  info.cleanup_detail = removed.second;
  if (!removed.first) log_->warn("{}", removed.second);
  result_ = info;
  ended_ = true;
  changed_.cancel();
}

asio::awaitable<sdk::ExitInfo> InstanceState::finished() {
  co_await asio::dispatch(strand_, use_awaitable);
  while (!result_) co_await wait_change();
  co_return *result_;
}

asio::awaitable<sdk::ExitInfo> InstanceState::stop(std::chrono::milliseconds grace,
                                                   sdk::LimitCause cause, std::string detail) {
  co_await asio::dispatch(strand_, use_awaitable);
  if (!result_ && !stop_requested_ && !exited_) {
    stop_requested_ = true;
    forced_cause_ = cause;
    forced_detail_ = std::move(detail);
    if (auto gave_up = co_await stop_steps(grace)) co_return *gave_up;
  }
  co_return co_await finished();
}

asio::awaitable<bool> InstanceState::exited_within(std::chrono::milliseconds limit) {
  std::function<bool()> exited = [this] { return exited_; };
  co_return co_await common::wait_done_within(changed_, limit, std::move(exited));
}

void InstanceState::warn_overrun(std::string_view step, std::chrono::milliseconds deadline,
                                 std::string_view escalation) const {
  log_->warn("{}",
             common::stop_overrun_warning("session instance " + name_, step, deadline, escalation));
}

asio::awaitable<bool> InstanceState::send_term() {
  // errand-guest-init passes SIGTERM on to the agent. The send runs on its own, so that a write
  // incusd never takes in does not hold the stop; closing the control connection ends it.
  auto sent = std::make_shared<std::optional<sdk::Result<void>>>();
  asio::co_spawn(
      strand_,
      [self = shared_from_this(), sent]() -> asio::awaitable<void> {
        *sent = co_await self->exec_->signal(SIGTERM);
        self->changed_.cancel();
      },
      asio::detached);
  std::function<bool()> settled = [this, sent] { return sent->has_value() || exited_; };
  co_await common::wait_done_within(changed_, kSignalDeadline, std::move(settled));
  if (!sent->has_value() && !exited_) {
    warn_overrun("sending SIGTERM", kSignalDeadline,
                 "closing the exec's control connection, which makes incusd kill "
                 "errand-guest-init");
    exec_->kill();
    co_return false;
  }
  if (sent->has_value() && !**sent)
    log_->warn("session instance {}: SIGTERM not delivered: {}", name_, (*sent)->error().message);
  co_return true;
}

asio::awaitable<std::optional<sdk::ExitInfo>> InstanceState::stop_steps(
    std::chrono::milliseconds grace) {
  // watch() wakes these waits as soon as the exit status arrives.
  if (co_await send_term()) {
    if (co_await exited_within(grace)) co_return std::nullopt;
    warn_overrun("the agent's end after SIGTERM", grace,
                 "closing the exec's control connection, which makes incusd kill "
                 "errand-guest-init");
    exec_->kill();
  }
  if (co_await exited_within(kEndAfterKillDeadline)) co_return std::nullopt;
  warn_overrun("errand-guest-init's end after its control connection closed", kEndAfterKillDeadline,
               "stopping the instance with force");
  const auto removed = co_await remove_instance(*client_, name_, kForceStopRequestDeadline);
  if (!removed.first) log_->warn("{}", removed.second);
  if (co_await exited_within(kEndAfterForceStopDeadline)) co_return std::nullopt;
  warn_overrun("the exec's exit status after the forced stop", kEndAfterForceStopDeadline,
               "returning without it");
  sdk::ExitInfo gave_up;
  gave_up.signal = SIGKILL;
  gave_up.limit = forced_cause_;
  gave_up.detail = (forced_detail_.empty() ? std::string() : forced_detail_ + "; ") +
                   "stopped with force; incusd never gave the agent's exit status";
  gave_up.cleanup_complete = removed.first;
  gave_up.cleanup_detail = removed.second;
  co_return gave_up;
}

void InstanceState::remove_soon() noexcept {
  if (ended_) return;
  try {
    asio::co_spawn(
        strand_,
        [client = client_, name = name_]() -> asio::awaitable<void> {
          co_await remove_instance(*client, name, kDefaultDeadline);
        },
        asio::detached);
  } catch (...) {
  }
}

IncusProcess::~IncusProcess() {
  state_->remove_soon();
}

}  // namespace errand::incus
