#include "core/agent/acp_connection.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/json/serialize.hpp>
#include <cerrno>
#include <cstring>

#include "common/ignore_sigpipe.hpp"

namespace errand::agent {

namespace asio = boost::asio;
namespace json = boost::json;
using asio::as_tuple;
using asio::use_awaitable;

struct AcpConnection::PendingCall {
  explicit PendingCall(const asio::any_io_executor& executor) : timer(executor) {}
  asio::steady_timer timer;
  std::string method;
  std::optional<sdk::Result<json::value>> outcome;
};

namespace {

int duplicate(int fd) {
  return fd < 0 ? -1 : ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

std::string id_text(const json::value& id) {
  return json::serialize(id);
}

}  // namespace

sdk::Result<std::shared_ptr<AcpConnection>> AcpConnection::open(
    asio::any_io_executor executor, const AgentStdio& stdio, Limits limits,
    std::shared_ptr<spdlog::logger> log) {
  if (stdio.stdin_fd < 0 || stdio.stdout_fd < 0)
    return sdk::make_error("the agent has no stdin or stdout to speak ACP over");
  common::ignore_sigpipe_once();
  const int in = duplicate(stdio.stdin_fd);
  const int out = duplicate(stdio.stdout_fd);
  const int err = duplicate(stdio.stderr_fd);
  if (in < 0 || out < 0 || (stdio.stderr_fd >= 0 && err < 0)) {
    const std::string why = std::strerror(errno);
    for (int fd : {in, out, err})
      if (fd >= 0) ::close(fd);
    return sdk::make_error("cannot take over the agent's stdio: " + why);
  }
  return std::shared_ptr<AcpConnection>(
      new AcpConnection(std::move(executor), in, out, err, limits, std::move(log)));
}

AcpConnection::AcpConnection(asio::any_io_executor executor, int stdin_fd, int stdout_fd,
                             int stderr_fd, Limits limits, std::shared_ptr<spdlog::logger> log)
    : executor_(executor),
      stdin_(executor, stdin_fd),
      stdout_(executor, stdout_fd),
      stderr_(executor),
      has_stderr_(stderr_fd >= 0),
      limits_(limits),
      log_(std::move(log)),
      splitter_(limits.max_line_bytes),
      stderr_tail_(limits.dying_words_bytes),
      stderr_drained_(executor) {
  if (has_stderr_) stderr_.assign(stderr_fd);
}

AcpConnection::~AcpConnection() = default;

void AcpConnection::start(Handlers handlers) {
  handlers_ = std::move(handlers);
  asio::co_spawn(executor_, read_stdout(shared_from_this()), asio::detached);
  if (has_stderr_)
    asio::co_spawn(executor_, read_stderr(shared_from_this()), asio::detached);
  else
    stderr_finished_ = true;
}

asio::awaitable<void> AcpConnection::read_stdout(
    [[maybe_unused]] std::shared_ptr<AcpConnection> self) {
  std::array<char, 64 * 1024> buffer;
  std::vector<std::string> lines;
  std::string why;
  while (true) {
    auto [ec, n] = co_await stdout_.async_read_some(asio::buffer(buffer), as_tuple(use_awaitable));
    if (closed_) co_return;
    if (ec) {
      why = ec == asio::error::eof ? "the agent closed its output (it exited or crashed)"
                                   : "reading the agent's output failed: " + ec.message();
      break;
    }
    lines.clear();
    const bool within_bound = splitter_.feed(std::string_view(buffer.data(), n), lines);
    for (const auto& line : lines) {
      if (closed_) co_return;
      dispatch(line);
    }
    if (!within_bound) {
      close("the agent sent a line longer than " + std::to_string(limits_.max_line_bytes) +
            " bytes, the most one ACP message may take, so errand ended the session");
      co_return;
    }
  }
  if (!stderr_finished_) {
    stderr_drained_.expires_after(limits_.stderr_drain);
    co_await stderr_drained_.async_wait(as_tuple(use_awaitable));
  }
  close(why);
}

asio::awaitable<void> AcpConnection::read_stderr(
    [[maybe_unused]] std::shared_ptr<AcpConnection> self) {
  std::array<char, 8 * 1024> buffer;
  while (!closed_) {
    auto [ec, n] = co_await stderr_.async_read_some(asio::buffer(buffer), as_tuple(use_awaitable));
    if (ec) break;
    const std::string_view bytes(buffer.data(), n);
    stderr_tail_.append(bytes);
    log_stderr_lines(bytes);
  }
  if (!stderr_partial_.empty()) log_->debug("agent stderr: {}", stderr_partial_);
  stderr_partial_.clear();
  stderr_finished_ = true;
  stderr_drained_.cancel();
}

void AcpConnection::log_stderr_lines(std::string_view bytes) {
  stderr_partial_.append(bytes);
  std::size_t start = 0;
  for (auto newline = stderr_partial_.find('\n'); newline != std::string::npos;
       newline = stderr_partial_.find('\n', start)) {
    log_->debug("agent stderr: {}",
                std::string_view(stderr_partial_).substr(start, newline - start));
    start = newline + 1;
  }
  stderr_partial_.erase(0, start);
  if (stderr_partial_.size() > 4096) {
    log_->debug("agent stderr: {}", stderr_partial_);
    stderr_partial_.clear();
  }
}

void AcpConnection::dispatch(const std::string& line) {
  if (line.find_first_not_of(" \t") == std::string::npos) return;
  auto message = rpc::parse_message(line);
  if (!message) {
    log_->warn("skipped a line from the agent because {}: {}", message.error().message,
               rpc::excerpt(line));
    return;
  }
  try {
    if (auto* request = std::get_if<rpc::Request>(&*message)) {
      if (handlers_.on_request)
        handlers_.on_request(std::move(*request));
      else
        reply_error(request->id, rpc::method_not_found, "the client takes no requests now");
    } else if (auto* notification = std::get_if<rpc::Notification>(&*message)) {
      if (handlers_.on_notification) handlers_.on_notification(std::move(*notification));
    } else {
      resolve(std::get<rpc::Response>(std::move(*message)));
    }
  } catch (const std::exception& e) {
    log_->error("handling a message from the agent failed: {}", e.what());
  }
}

void AcpConnection::resolve(rpc::Response response) {
  const json::value& id = response.id;
  std::optional<std::int64_t> number;
  if (id.is_int64()) number = id.as_int64();
  if (id.is_uint64() && id.as_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
    number = static_cast<std::int64_t>(id.as_uint64());
  const auto found = number ? pending_.find(*number) : pending_.end();
  if (found == pending_.end()) {
    if (number && abandoned_.erase(*number) > 0) {
      log_->debug("the agent answered request {} after errand stopped waiting for it", *number);
    } else if (response.error) {
      log_->warn("the agent sent error {} \"{}\" for id {}, which no request is waiting for",
                 response.error->code, rpc::excerpt(response.error->message), id_text(id));
    } else {
      log_->warn("the agent answered id {}, which no request is waiting for; ignored", id_text(id));
    }
    return;
  }
  auto pending = found->second;
  pending_.erase(found);
  if (response.error) {
    const auto& e = *response.error;
    const auto kind =
        e.code == rpc::method_not_found ? sdk::Error::Kind::not_found : sdk::Error::Kind::failed;
    pending->outcome = sdk::Result<json::value>(
        sdk::make_error("the agent answered " + pending->method + " with error " +
                            std::to_string(e.code) + ": " + rpc::excerpt(e.message, 500),
                        kind));
  } else {
    pending->outcome = sdk::Result<json::value>(std::move(*response.result));
  }
  pending->timer.cancel();
}

asio::awaitable<sdk::Result<json::value>> AcpConnection::call(
    std::string method, json::value params, std::optional<std::chrono::milliseconds> timeout) {
  if (closed_) co_return sdk::make_error(close_reason_, sdk::Error::Kind::unavailable);
  const std::int64_t id = next_id_++;
  auto pending = std::make_shared<PendingCall>(executor_);
  pending->method = method;
  if (timeout)
    pending->timer.expires_after(*timeout);
  else
    pending->timer.expires_at(asio::steady_timer::time_point::max());
  pending_.emplace(id, pending);
  send_line(rpc::request_line(id, method, std::move(params)));
  auto [ec] = co_await pending->timer.async_wait(as_tuple(use_awaitable));
  if (pending->outcome) co_return std::move(*pending->outcome);
  pending_.erase(id);
  abandoned_.insert(id);
  if (!ec)
    co_return sdk::make_error("the agent did not answer " + method + " within " +
                                  std::to_string(timeout ? timeout->count() : 0) + " ms",
                              sdk::Error::Kind::unavailable);
  co_return sdk::make_error("waiting for the agent's answer to " + method + " was cancelled",
                            sdk::Error::Kind::cancelled);
}

void AcpConnection::notify(std::string_view method, json::value params) {
  send_line(rpc::notification_line(method, std::move(params)));
}

void AcpConnection::reply(const json::value& id, json::value result) {
  send_line(rpc::result_line(id, std::move(result)));
}

void AcpConnection::reply_error(const json::value& id, int code, std::string_view message) {
  send_line(rpc::error_line(id, code, message));
}

void AcpConnection::send_line(std::string line) {
  if (closed_) {
    log_->debug("not sent to the agent, the connection is closed: {}", rpc::excerpt(line));
    return;
  }
  outbox_.push_back(std::move(line));
  if (writing_) return;
  writing_ = true;
  asio::co_spawn(executor_, write_queued(shared_from_this()), asio::detached);
}

asio::awaitable<void> AcpConnection::write_queued(
    [[maybe_unused]] std::shared_ptr<AcpConnection> self) {
  while (!outbox_.empty() && !closed_) {
    auto [ec, n] =
        co_await asio::async_write(stdin_, asio::buffer(outbox_.front()), as_tuple(use_awaitable));
    if (ec) {
      writing_ = false;
      close("the agent stopped reading its input (" + ec.message() + ")");
      co_return;
    }
    outbox_.pop_front();
  }
  writing_ = false;
}

void AcpConnection::close(const std::string& why) {
  if (closed_) return;
  closed_ = true;
  const std::string words = stderr_tail_.text();
  close_reason_ = why + (words.empty() ? "; it wrote nothing on stderr"
                                       : "; its last words on stderr: " + words);
  boost::system::error_code ignored;
  stdin_.close(ignored);
  stdout_.close(ignored);
  if (has_stderr_) stderr_.close(ignored);
  stderr_drained_.cancel();
  outbox_.clear();
  auto waiting = std::move(pending_);
  pending_.clear();
  for (auto& [id, pending] : waiting) {
    pending->outcome =
        sdk::Result<json::value>(sdk::make_error(close_reason_, sdk::Error::Kind::unavailable));
    pending->timer.cancel();
  }
  auto on_closed = std::move(handlers_.on_closed);
  handlers_ = {};
  log_->info("the ACP connection ended: {}", close_reason_);
  if (on_closed) on_closed(close_reason_);
}

}  // namespace errand::agent
