#pragma once

// `errand run` never serves as root. Every sandbox maps the agent to the daemon's own account,
// so under root the agent would be uid 0 on the host and could read any root-owned file in a
// path it is granted. There is no switch to allow it: the daemon is run as an account of its own.

#include <sys/types.h>

#include <errand/sdk/result.hpp>

namespace errand::daemon {

// Refused (kind refused), saying how to run errand instead, when either uid is 0.
sdk::Result<void> refuse_root(uid_t real_uid, uid_t effective_uid);

}  // namespace errand::daemon
