#pragma once

// A Landlock domain that denies no file access. What it is for is Landlock's rule on ptrace: a
// process inside a domain may not ptrace, nor open /proc/<pid>/mem of, any process outside it
// (or in an enclosing one). errand-relay puts the agent in one so that nothing the agent runs
// can write into the relay, the container's PID 1, even if the relay's own non-dumpable flag
// were lost.

namespace errand::landlock {

// Moves the calling thread (and what it starts from now on) into a new domain whose one handled
// right, execute, is granted beneath "/". Returns 0 or -errno of the step that failed; needs
// no_new_privs, which loading errand's seccomp filter sets. Async-signal-safe.
int enter_fence() noexcept;

}  // namespace errand::landlock
