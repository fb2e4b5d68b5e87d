#pragma once

// JSON-RPC over an agent's three stdio descriptors: lines out on stdin, lines in on stdout,
// stderr kept as the agent's dying words. Every member runs on the executor given at open(),
// which must be a strand (or a single-threaded io_context): the connection has no locks.

#include "core/agent/acp_types.hpp"
#include "core/agent/json_rpc.hpp"
#include "core/agent/line_splitter.hpp"

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <errand/sdk/result.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace errand::agent {

class AcpConnection : public std::enable_shared_from_this<AcpConnection> {
 public:
  struct Handlers {
    std::function<void(rpc::Request)> on_request;  // must answer with reply or reply_error
    std::function<void(rpc::Notification)> on_notification;
    std::function<void(const std::string& reason)> on_closed;  // once, whatever ended it
  };
  struct Limits {
    std::size_t max_line_bytes = 8 * 1024 * 1024;
    std::size_t dying_words_bytes = 2000;
    std::chrono::milliseconds stderr_drain{500};
  };

  // Duplicates the descriptors; the caller keeps ownership of the ones it passed.
  static sdk::Result<std::shared_ptr<AcpConnection>> open(boost::asio::any_io_executor executor,
                                                          const AgentStdio& stdio, Limits limits,
                                                          std::shared_ptr<spdlog::logger> log);
  ~AcpConnection();

  // Starts reading. The connection keeps itself alive until it is closed.
  void start(Handlers handlers);

  // Sends a request and waits for its answer. Without a timeout it waits as long as the
  // connection lives. Errors: unavailable (closed, or no answer in time), not_found (the agent
  // does not know the method), failed (any other error answer), cancelled (the wait was).
  boost::asio::awaitable<sdk::Result<boost::json::value>> call(
      std::string method, boost::json::value params,
      std::optional<std::chrono::milliseconds> timeout);

  void notify(std::string_view method, boost::json::value params);
  void reply(const boost::json::value& id, boost::json::value result);
  void reply_error(const boost::json::value& id, int code, std::string_view message);

  // Ends the conversation: fails every waiting call with the reason (and the dying words),
  // closes the descriptors, calls on_closed. Idempotent.
  void close(const std::string& why);
  // Forgets the handlers without closing, so an owner going away is never called back.
  void drop_handlers() { handlers_ = {}; }

  bool closed() const noexcept { return closed_; }
  const std::string& close_reason() const noexcept { return close_reason_; }
  std::string dying_words() const { return stderr_tail_.text(); }
  const boost::asio::any_io_executor& executor() const noexcept { return executor_; }
  spdlog::logger& log() const noexcept { return *log_; }

 private:
  struct PendingCall;

  AcpConnection(boost::asio::any_io_executor executor, int stdin_fd, int stdout_fd, int stderr_fd,
                Limits limits, std::shared_ptr<spdlog::logger> log);

  boost::asio::awaitable<void> read_stdout(std::shared_ptr<AcpConnection> keep_alive);
  boost::asio::awaitable<void> read_stderr(std::shared_ptr<AcpConnection> keep_alive);
  boost::asio::awaitable<void> write_queued(std::shared_ptr<AcpConnection> keep_alive);
  void send_line(std::string line);
  void dispatch(const std::string& line);
  void resolve(rpc::Response response);
  void log_stderr_lines(std::string_view bytes);

  boost::asio::any_io_executor executor_;
  boost::asio::posix::stream_descriptor stdin_, stdout_, stderr_;
  bool has_stderr_;
  Limits limits_;
  std::shared_ptr<spdlog::logger> log_;
  Handlers handlers_;
  LineSplitter splitter_;
  StderrTail stderr_tail_;
  std::string stderr_partial_;
  bool stderr_finished_ = false;
  boost::asio::steady_timer stderr_drained_;
  std::deque<std::string> outbox_;
  bool writing_ = false;
  std::int64_t next_id_ = 0;
  std::map<std::int64_t, std::shared_ptr<PendingCall>> pending_;
  std::set<std::int64_t> abandoned_;  // timed out or cancelled: a late answer is expected
  bool closed_ = false;
  std::string close_reason_;
};

}  // namespace errand::agent
