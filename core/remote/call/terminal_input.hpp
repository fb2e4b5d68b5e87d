#pragma once

// Reading what the user's side sends while a job is followed: stdin, and interrupts through
// the CLI's self-pipe. Both are read only after poll says they are ready, so a read never
// waits, whether or not the descriptor is blocking.

#include <cstddef>
#include <optional>
#include <string>

namespace errand::remote {

// Stdin is forwarded in pieces of this size: small enough to keep the job's input flowing in
// step with the user's, well within a frame.
inline constexpr std::size_t kInputChunkBytes = 64 * 1024;

struct InputRead {
  enum class Kind { data, end, failed, nothing } kind = Kind::nothing;
  std::string data;    // for data
  std::string reason;  // for failed: the system's wording
};

// One read of up to kInputChunkBytes from a ready stdin: data, its end (a terminal's Ctrl-D or
// a pipe's last writer gone), a failure, or nothing (EINTR, EAGAIN: try again later).
InputRead read_input(int fd);

// How many interrupts are waiting in the ready self-pipe (one byte each; 0 after EINTR or
// EAGAIN), or nothing when it has closed and can bring no more.
std::optional<std::size_t> read_interrupts(int fd);

}  // namespace errand::remote
