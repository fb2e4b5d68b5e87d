#include "core/cli/remote_peer.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace errand::cli {

namespace {

constexpr std::string_view kSshScheme = "ssh://";

// Characters of a host name, an ssh config alias or a user name. A leading '-' is refused apart:
// ssh would take it for an option.
bool is_destination_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-' || c == '_';
}

bool is_plain_name(std::string_view text) {
  return !text.empty() && text.front() != '-' && std::ranges::all_of(text, is_destination_char);
}

// "[user@]host", each part a plain name.
bool is_destination(std::string_view text) {
  const auto at = text.find('@');
  if (at == std::string_view::npos) return is_plain_name(text);
  return is_plain_name(text.substr(0, at)) && is_plain_name(text.substr(at + 1));
}

sdk::Error unknown_peer(std::string_view text) {
  return sdk::refusal("unknown peer \"" + std::string(text) +
                      "\": give local, ssh://[USER@]HOST[:PORT], USER@HOST or an ssh config alias");
}

sdk::Result<Peer> parse_ssh_url(std::string_view text) {
  std::string_view rest = text.substr(kSshScheme.size());
  std::optional<int> port;
  if (const auto colon = rest.rfind(':'); colon != std::string_view::npos) {
    const auto digits = rest.substr(colon + 1);
    int value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() || value < 1 ||
        value > 65535)
      return sdk::refusal("peer \"" + std::string(text) + "\": the port must be 1 to 65535");
    port = value;
    rest = rest.substr(0, colon);
  }
  if (!is_destination(rest)) return unknown_peer(text);
  return Peer{.kind = PeerKind::ssh,
              .name = std::string(text),
              .destination = std::string(rest),
              .port = port};
}

}  // namespace

sdk::Result<Peer> parse_peer(std::string_view text) {
  if (text == kLocalPeer)
    return Peer{.kind = PeerKind::local, .name = std::string(text), .destination = {}, .port = {}};
  if (text.starts_with(kSshScheme)) return parse_ssh_url(text);
  if (!is_destination(text)) return unknown_peer(text);
  return Peer{.kind = PeerKind::ssh,
              .name = std::string(text),
              .destination = std::string(text),
              .port = {}};
}

SshInvocation ssh_invocation(const Peer& peer, std::string_view ssh_program,
                             std::string_view remote_errand) {
  SshInvocation out{.program = std::string(ssh_program), .args = {"-T", "-o", "BatchMode=yes"}};
  if (peer.port) {
    out.args.emplace_back("-p");
    out.args.push_back(std::to_string(*peer.port));
  }
  out.args.push_back(peer.destination);
  out.args.emplace_back(remote_errand);
  out.args.emplace_back("serve");
  out.args.emplace_back("--connect");
  return out;
}

SshInvocation ssh_invocation_from_environment(const Peer& peer) {
  const char* ssh = std::getenv("ERRAND_SSH");
  const char* remote = std::getenv("ERRAND_REMOTE_COMMAND");
  return ssh_invocation(peer, ssh && *ssh ? ssh : "ssh", remote && *remote ? remote : "errand");
}

sdk::Result<std::string> local_socket_path(const std::optional<std::string>& option,
                                           const char* env_value) {
  if (option && !option->empty()) return *option;
  if (env_value && *env_value) return std::string(env_value);
  return sdk::refusal("no runner socket: pass --socket PATH or set ERRAND_RUNNER_SOCKET");
}

}  // namespace errand::cli
