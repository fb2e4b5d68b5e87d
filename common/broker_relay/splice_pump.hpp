#pragma once

// One direction of a byte tunnel between two non-blocking stream sockets: bytes go from one
// socket into a pipe and from the pipe into the other with splice(2), so they never enter the
// process's memory. Where no pipe can be had, or a socket refuses splice, the same steps copy
// through a small buffer instead. The relay inside a sandbox and the broker's CONNECT tunnels
// both drive it; each waits for readiness its own way (an epoll loop, the broker's reactor), so
// the pump only moves bytes and says what it is waiting for. Standard library only, so the
// static launchers can link it.

#include <cstddef>
#include <cstdint>
#include <memory>

namespace errand::broker_relay {

// Makes a pipe as pipe2(2) does; a seam, so a test can have it fail and watch the copy path.
using PipeOpener = int (*)(int fds[2], int flags);
int open_pipe(int fds[2], int flags);

class SplicePump {
 public:
  // What the caller does next.
  enum class Step {
    wait_readable,  // the source has nothing now: wait until it is readable
    wait_writable,  // the destination is full and bytes are held: wait until it is writable
    yield,          // a burst's worth moved: let other work run, then call run again
    finished,       // the source ended, everything reached the destination, its write side shut
    failed,         // a socket failed; the tunnel is over in both directions
  };

  explicit SplicePump(PipeOpener opener = open_pipe);
  ~SplicePump();
  SplicePump(const SplicePump&) = delete;
  SplicePump& operator=(const SplicePump&) = delete;

  // Moves bytes until a socket would block. It reads nothing more while it holds bytes the
  // destination has not taken, so a slow reader holds the sender back instead of filling memory.
  // On the source's end of stream, once all is delivered, it shuts the destination's write side
  // so the far end sees the half-close while the other direction carries on.
  Step run(int from, int to);

  bool spliced() const noexcept { return pipe_[0] >= 0; }
  bool holding() const noexcept { return held_ > 0; }
  std::uint64_t moved() const noexcept { return moved_; }

 private:
  long fill(int from);
  long drain(int to);
  void fall_back_to_copying();

  int pipe_[2] = {-1, -1};
  std::unique_ptr<char[]> buffer_;  // only when copying
  std::size_t copy_offset_ = 0;     // where the held bytes start in buffer_
  std::size_t capacity_ = 0;
  std::size_t held_ = 0;  // bytes read from the source and not yet written
  bool source_ended_ = false;
  bool finished_ = false;
  std::uint64_t moved_ = 0;
};

}  // namespace errand::broker_relay
