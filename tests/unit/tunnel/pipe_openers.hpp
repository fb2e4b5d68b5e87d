#pragma once

// Pipe openers the tunnel tests hand to the splice pump: one that counts the pipes it makes, and
// one that refuses every pipe as a process out of file descriptors would, so the copy path runs.

#include <atomic>

namespace errand::tunnel_testing {

inline std::atomic<int> pipes_made{0};
inline std::atomic<int> pipes_refused{0};

int counted_pipe(int fds[2], int flags);
int refused_pipe(int fds[2], int flags);

using Opener = int (*)(int fds[2], int flags);

// The two ways a tunnel moves bytes, for GENERATE.
struct Path {
  const char* name;
  Opener opener;
};
inline constexpr Path kSpliced{"spliced through pipes", counted_pipe};
inline constexpr Path kCopied{"copied, no pipe to be had", refused_pipe};

}  // namespace errand::tunnel_testing
