#pragma once

// Where a remote-run command goes: `--on PEER`. "local" is the runner socket on this machine;
// anything else is an ssh destination, reached by running `errand serve --connect` there over
// ssh, whose stdin and stdout then carry the protocol.

#include <errand/sdk/result.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::cli {

inline constexpr std::string_view kLocalPeer = "local";

enum class PeerKind { local, ssh };

struct Peer {
  PeerKind kind = PeerKind::local;
  // As the user wrote it: the peer's part of job handles, so a handle printed by one command is
  // one `--on` (or `attach PEER/ID`) takes back.
  std::string name;
  std::string destination;  // ssh only: "host", "user@host" or an ssh config alias
  std::optional<int> port;  // ssh only, from ssh://DEST:PORT
};

// "local", "ssh://[user@]host[:port]", or a bare "[user@]host" / ssh config alias. Anything else
// (a path, a URL of another scheme, a name ssh would read as an option) is refused.
sdk::Result<Peer> parse_peer(std::string_view text);

// The program to run and its arguments (argv[0] left out) for reaching an ssh peer.
struct SshInvocation {
  std::string program;
  std::vector<std::string> args;
};

// `SSH -T -o BatchMode=yes [-p PORT] DEST REMOTE_ERRAND serve --connect`. BatchMode: a password
// prompt would read from the terminal the job's input comes from, so keys only.
SshInvocation ssh_invocation(const Peer& peer, std::string_view ssh_program,
                             std::string_view remote_errand);

// The same with ERRAND_SSH (default "ssh") and ERRAND_REMOTE_COMMAND (default "errand") read
// from the environment.
SshInvocation ssh_invocation_from_environment(const Peer& peer);

// The local runner's socket: --socket PATH, else ERRAND_RUNNER_SOCKET (env_value, null when
// unset), else a refusal saying how to give one.
sdk::Result<std::string> local_socket_path(const std::optional<std::string>& option,
                                           const char* env_value);

}  // namespace errand::cli
