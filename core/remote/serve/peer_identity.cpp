#include "core/remote/serve/peer_identity.hpp"

#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

namespace errand::remote {

sdk::Result<PeerIdentity> peer_identity(int fd) {
  ucred credentials{};
  socklen_t size = sizeof credentials;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0)
    return sdk::make_error("could not tell who connected (SO_PEERCRED): " +
                           std::system_category().message(errno));
  return PeerIdentity{credentials.uid, account_name_of(credentials.uid)};
}

std::string account_name_of(std::int64_t uid) {
  passwd entry{};
  passwd* found = nullptr;
  std::string buf(16384, '\0');
  if (::getpwuid_r(static_cast<uid_t>(uid), &entry, buf.data(), buf.size(), &found) == 0 &&
      found != nullptr)
    return entry.pw_name;
  return "uid " + std::to_string(uid);
}

bool peer_allowed(const PeerIdentity& peer, const std::vector<std::string>& allow_users) {
  if (allow_users.empty()) return peer.uid == static_cast<std::int64_t>(::getuid());
  return std::find(allow_users.begin(), allow_users.end(), peer.name) != allow_users.end();
}

}  // namespace errand::remote
