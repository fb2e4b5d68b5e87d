#pragma once

// The relay from 127.0.0.1:3128 to the broker's socket, in a child of the init running as the
// agent's account. Not in the init itself: the broker's socket is mapped to the daemon's account
// as the agent's uid, so root in the guest may not connect to it, and the init must stay root to
// kill what the agent leaves behind (sudo makes root processes among them).

#include <sys/types.h>

#include <errand/sdk/result.hpp>
#include <string>

#include "plugins/sandbox-incus/guest/guest_account.hpp"

namespace errand::incus::guest {

struct RelayProcess {
  pid_t pid = -1;
  int pidfd = -1;  // readable once the relay has ended, whoever reaps it
};

// Returns once the relay listens, so the agent's first connection finds it; the error says why
// it could not (the step and errno, from the relay itself).
sdk::Result<RelayProcess> start_relay(const std::string& broker_socket,
                                      const GuestAccount& account);

}  // namespace errand::incus::guest
