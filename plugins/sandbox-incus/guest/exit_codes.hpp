#pragma once

// How errand-guest-init ends when the agent did not decide it, so the plugin reads its exec's
// return code without parsing stderr (which always says why). Otherwise it exits as the agent
// did: its code, or 128+N when a signal ended it, as Incus reports the exec'd process.
namespace errand::incus::guest {

// The init itself ended the session: bad arguments, a malformed secret preamble, a mount or the
// relay that could not be set up, or the relay lost while the agent ran. The agent never ran, or
// was killed.
inline constexpr int kInitFailed = 125;
// The agent's program exists but could not be started (permissions, the account, its cwd).
inline constexpr int kNotRunnable = 126;
// The agent's program was not found.
inline constexpr int kNotFound = 127;

}  // namespace errand::incus::guest
