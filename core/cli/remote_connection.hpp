#pragma once

// The stream to a runner, opened for one call: a connected unix socket for the local runner, or
// ssh running `errand serve --connect` on the peer, its stdin and stdout the stream and its
// stderr left on ours so that ssh's own complaints reach the user.

#include <sys/types.h>

#include <errand/sdk/result.hpp>
#include <optional>
#include <string>

#include "core/cli/remote_arguments.hpp"
#include "core/cli/remote_peer.hpp"
#include "core/remote/call/call_endpoints.hpp"

namespace errand::cli {

class RunnerConnection {
 public:
  // Connects as `where` says; a refusal for a peer that cannot be named or a local runner
  // with no socket, an error for a socket that cannot be connected or ssh that cannot start.
  static sdk::Result<RunnerConnection> open(const PeerChoice& where);

  RunnerConnection(RunnerConnection&& other) noexcept;
  RunnerConnection& operator=(RunnerConnection&&) = delete;
  RunnerConnection(const RunnerConnection&) = delete;
  ~RunnerConnection();

  const remote::RunnerLink& link() const noexcept { return link_; }
  bool through_ssh() const noexcept { return ssh_pid_ > 0; }

  // Closes the stream and, for ssh, waits for it to exit (a few seconds, then kills it).
  // Returns ssh's exit status (128 + N for a signal), nullopt for a local socket.
  std::optional<int> close();

 private:
  RunnerConnection() = default;

  remote::RunnerLink link_;
  pid_t ssh_pid_ = -1;
  int ssh_pidfd_ = -1;
  std::optional<int> ssh_status_;
};

// "could not reach PEER (ssh exited N)" when the call failed and ssh exited with a failure
// (its own message is already on stderr); nullopt otherwise.
std::optional<std::string> unreachable_sentence(const std::string& peer,
                                                std::optional<int> ssh_status);

// "errand VERSION", this side's hello.
std::string caller_program();

}  // namespace errand::cli
