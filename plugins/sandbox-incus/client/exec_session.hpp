#pragma once

// A command running in an instance through Incus's exec, with its stdio on local sockets. The
// caller treats stdin_fd, stdout_fd and stderr_fd as the command's stdin, stdout and stderr (as
// it would a child's pipes); the session splices them to the exec's websockets. The fds stay
// owned by the session. Every member runs on the client's executor; destroying the session
// closes the control websocket, which makes incusd kill the command.

#include <boost/asio/awaitable.hpp>
#include <errand/sdk/result.hpp>
#include <memory>
#include <string>

namespace errand::incus {

class ExecSession {
 public:
  struct State;
  explicit ExecSession(std::shared_ptr<State> state);
  ~ExecSession();
  ExecSession(const ExecSession&) = delete;
  ExecSession& operator=(const ExecSession&) = delete;

  int stdin_fd() const noexcept;
  int stdout_fd() const noexcept;
  int stderr_fd() const noexcept;

  // Ends the command's stdin, even while the caller holds duplicates of stdin_fd (they are
  // sockets, so this shuts the writing side down rather than waiting for every copy to close).
  void close_stdin() noexcept;

  // Sends signal number to the command (only the exec'd process, not its children). One signal
  // at a time: a second while one is being sent is refused.
  boost::asio::awaitable<sdk::Result<void>> signal(int number);

  // Closes the control websocket: incusd SIGKILLs the exec'd process.
  void kill() noexcept;

  // The command's exit status as Incus reports it (128+N after signal N), once its stdout and
  // stderr have been delivered: keep reading them while waiting. Waits as long as the command
  // runs; calling it again gives the same answer.
  boost::asio::awaitable<sdk::Result<int>> wait();

  const std::string& operation_id() const noexcept;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace errand::incus
