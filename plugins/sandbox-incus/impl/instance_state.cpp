#include "plugins/sandbox-incus/impl/instance_state.hpp"

#include <csignal>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/verb.hpp>
#include <boost/json/object.hpp>

#include "plugins/sandbox-incus/guest/exit_codes.hpp"

namespace errand::incus {

using asio::use_awaitable;
namespace http = boost::beast::http;

namespace {

// After the control connection is closed, incusd kills errand-guest-init at once; this long
// without an exit status means incusd itself is stuck, and the instance is stopped under it.
constexpr std::chrono::milliseconds kAfterKill{5000};

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
                                                              const std::string& name) {
  const std::string path = "/1.0/instances/" + name;
  // A forced stop ends every process at once; the instance is ephemeral, so Incus deletes it.
  // Named rather than temporaries: GCC 12 mishandles temporaries that live across a co_await.
  boost::json::value stop_body =
      boost::json::object{{"action", "stop"}, {"force", true}, {"timeout", -1}};
  std::string state_path = path + "/state";
  auto stopped = co_await client.request(http::verb::put, state_path, std::move(stop_body));
  if (!stopped && is_not_found(stopped.error())) co_return Removal{true, {}};
  auto still = co_await client.request(http::verb::get, path);
  if (!still && is_not_found(still.error())) co_return Removal{true, {}};
  auto deleted = co_await client.request(http::verb::delete_, path);
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
      grace_timer_(strand_),
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
  grace_timer_.cancel();
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
    // errand-guest-init passes SIGTERM on to the agent; closing the control connection then
    // kills the init, and the agent with it (its parent-death signal).
    if (auto sent = co_await exec_->signal(SIGTERM); !sent)
      log_->warn("session instance {}: SIGTERM not delivered: {}", name_, sent.error().message);
    boost::system::error_code ignored;
    if (!exited_) {
      // watch() cancels this wait as soon as the exit status arrives.
      grace_timer_.expires_after(grace);
      co_await grace_timer_.async_wait(asio::redirect_error(use_awaitable, ignored));
    }
    if (!exited_) {
      exec_->kill();
      grace_timer_.expires_after(kAfterKill);
      co_await grace_timer_.async_wait(asio::redirect_error(use_awaitable, ignored));
      if (!exited_) {
        log_->warn("session instance {}: no exit status {} ms after the kill; stopping it", name_,
                   kAfterKill.count());
        co_await remove_instance(*client_, name_);
      }
    }
  }
  co_return co_await finished();
}

void InstanceState::remove_soon() noexcept {
  if (ended_) return;
  try {
    asio::co_spawn(
        strand_,
        [client = client_, name = name_]() -> asio::awaitable<void> {
          co_await remove_instance(*client, name);
        },
        asio::detached);
  } catch (...) {
  }
}

IncusProcess::~IncusProcess() {
  state_->remove_soon();
}

}  // namespace errand::incus
