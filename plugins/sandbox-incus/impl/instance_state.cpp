#include "plugins/sandbox-incus/impl/instance_state.hpp"

#include <csignal>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/beast/http/verb.hpp>
#include <boost/json/object.hpp>

#include "plugins/sandbox-incus/guest/exit_codes.hpp"
#include "plugins/sandbox-incus/impl/stop_deadlines.hpp"

namespace errand::incus {

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
  // The deletion is what failed; a stop that failed too (an instance already stopped says so)
  // is said after it.
  std::string left =
      "could not remove the instance " + name + ": " + deleted.error().message +
      (stopped ? std::string() : " (the stop before it: " + stopped.error().message + ")");
  co_return Removal{false, std::move(left)};
}

InstanceState::InstanceState(asio::strand<asio::any_io_executor> strand,
                             std::shared_ptr<IncusClient> client,
                             std::shared_ptr<spdlog::logger> log, std::string name,
                             std::unique_ptr<ExecSession> exec, int pid,
                             std::optional<common::DiskWatch> disk, std::chrono::milliseconds grace)
    : Lifecycle(std::move(strand), std::move(log), "session instance " + name,
                {pid, exec->stdin_fd(), exec->stdout_fd(), exec->stderr_fd()}, std::move(disk),
                grace),
      client_(std::move(client)),
      name_(std::move(name)),
      exec_(std::move(exec)) {}

asio::awaitable<sdk::ExitInfo> InstanceState::await_exit() {
  const sdk::Result<int> code = co_await exec_->wait();
  if (code) co_return exit_from_return(*code);
  sdk::ExitInfo lost;
  lost.detail = "the agent's exit status was lost: " + code.error().message;
  co_return lost;
}

void InstanceState::keep_for_thread(std::shared_ptr<KeptHousekeeping> housekeeping) {
  kept_ = std::move(housekeeping);
}

void InstanceState::describe_end(sdk::ExitInfo& exit) {
  Lifecycle::describe_end(exit);
  if (exit.exit_code == guest::kInitFailed) discard_ = true;
}

asio::awaitable<sdk::Result<void>> InstanceState::clean_up() {
  if (kept_ && !discard_) {
    auto stopped = co_await stop_kept(*client_, name_);
    if (stopped) {
      kept_->keep_total_soon();
      co_return sdk::Result<void>{};
    }
    log()->warn("{}: the thread's instance could not be stopped to keep it ({}); deleting it",
                who(), stopped.error().message);
  }
  const auto removed = co_await remove_instance(*client_, name_);
  if (!removed.first) co_return sdk::make_error(removed.second);
  co_return sdk::Result<void>{};
}

asio::awaitable<bool> InstanceState::send_term() {
  // errand-guest-init passes SIGTERM on to the agent. The send runs on its own, so that a write
  // incusd never takes in does not hold the stop; closing the control connection ends it.
  auto sent = std::make_shared<std::optional<sdk::Result<void>>>();
  asio::co_spawn(
      strand(),
      [self = std::static_pointer_cast<InstanceState>(shared_from_this()),
       sent]() -> asio::awaitable<void> {
        *sent = co_await self->exec_->signal(SIGTERM);
        self->notify();
      },
      asio::detached);
  std::function<bool()> settled = [this, sent] { return sent->has_value() || exited(); };
  co_await holds_within(kSignalDeadline, std::move(settled));
  if (!sent->has_value() && !exited()) {
    warn_overrun("sending SIGTERM", kSignalDeadline,
                 "closing the exec's control connection, which makes incusd kill "
                 "errand-guest-init");
    exec_->kill();
    co_return false;
  }
  if (sent->has_value() && !**sent)
    log()->warn("{}: SIGTERM not delivered: {}", who(), (*sent)->error().message);
  co_return true;
}

asio::awaitable<std::optional<sdk::ExitInfo>> InstanceState::stop_steps(
    std::chrono::milliseconds grace) {
  // watch() wakes these waits as soon as the exit status arrives.
  const bool term_sent = co_await send_term();
  if (term_sent) {
    const bool ended_by_term = co_await exited_within(grace);
    if (ended_by_term) co_return std::nullopt;
    warn_overrun("the agent's end after SIGTERM", grace,
                 "closing the exec's control connection, which makes incusd kill "
                 "errand-guest-init");
    exec_->kill();
  }
  const bool ended_by_close = co_await exited_within(kEndAfterKillDeadline);
  if (ended_by_close) co_return std::nullopt;
  warn_overrun("errand-guest-init's end after its control connection closed", kEndAfterKillDeadline,
               "stopping the instance with force");
  const auto removed = co_await remove_instance(*client_, name_, kForceStopRequestDeadline);
  if (!removed.first) log()->warn("{}", removed.second);
  const bool ended_by_force = co_await exited_within(kEndAfterForceStopDeadline);
  if (ended_by_force) co_return std::nullopt;
  warn_overrun("the exec's exit status after the forced stop", kEndAfterForceStopDeadline,
               "returning without it");
  auto gave_up = gave_up_exit("stopped with force; incusd never gave the agent's exit status");
  gave_up.cleanup_complete = removed.first;
  gave_up.cleanup_detail = removed.second;
  co_return gave_up;
}

void InstanceState::abandon() noexcept {
  try {
    // A thread's kept instance outlives the daemon stopped, for the thread's next session.
    asio::co_spawn(
        strand(),
        [client = client_, name = name_, kept = kept_ && !discard_]() -> asio::awaitable<void> {
          if (kept && co_await stop_kept(*client, name)) co_return;
          co_await remove_instance(*client, name, kDefaultDeadline);
        },
        asio::detached);
  } catch (...) {
  }
}

void InstanceState::watch_root_disk(RootDiskWatch watch) {
  auto self = std::static_pointer_cast<InstanceState>(shared_from_this());
  asio::co_spawn(
      strand(),
      [self, watch = std::move(watch)]() mutable {
        return self->root_disk_rounds(std::move(watch));
      },
      asio::detached);
}

asio::awaitable<void> InstanceState::root_disk_rounds(RootDiskWatch watch) {
  const auto ending = [this] { return exited() || stop_requested(); };
  bool told = false;
  while (!co_await holds_within(watch.interval, ending)) {
    auto state = co_await client_->request(http::verb::get, "/1.0/instances/" + name_ + "/state");
    if (!state || !state->is_object()) continue;  // the next round asks again
    const auto* root = state->as_object().if_contains("disk");
    root = root != nullptr && root->is_object() ? root->as_object().if_contains("root") : nullptr;
    if (root == nullptr || !root->is_object()) continue;
    const auto number = [&](const char* key) -> std::uint64_t {
      const auto* v = root->as_object().if_contains(key);
      return v != nullptr && v->is_int64() && v->as_int64() > 0
                 ? static_cast<std::uint64_t>(v->as_int64())
                 : 0;
    };
    const auto usage = number("usage");
    const auto total = number("total");
    switch (root_fill(watch.image_bytes, usage, total)) {
      case RootFill::unbounded: co_return;  // no quota on this root: nothing to fill
      case RootFill::full:
        if (!told) {
          told = true;
          const auto text = root_full_notice(watch, usage, total);
          log()->warn("{}: {}", who(), text);
          if (watch.notices) watch.notices->send(watch.session_id, text);
        }
        break;
      case RootFill::room:
        if (told && root_has_room_again(watch.image_bytes, usage, total)) told = false;
        break;
    }
  }
}

}  // namespace errand::incus
