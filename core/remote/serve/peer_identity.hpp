#pragma once

// Who is on the other end of a runner connection. The kernel says it (SO_PEERCRED), not the
// caller, so neither the socket's file mode nor anything the caller sends decides who may run
// jobs: the allow list does.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <string>
#include <vector>

namespace errand::remote {

struct PeerIdentity {
  std::int64_t uid = 0;
  std::string name;  // from the password database; "uid <n>" without an entry
};

// The identity of the process that connected the unix socket fd.
sdk::Result<PeerIdentity> peer_identity(int fd);

// The account name of uid, or "uid <n>" when the password database has none.
std::string account_name_of(std::int64_t uid);

// runner.allowUsers: an empty list admits only the runner's own account.
bool peer_allowed(const PeerIdentity& peer, const std::vector<std::string>& allow_users);

}  // namespace errand::remote
