#pragma once

// The caller's end of the byte stream to the runner, as whole messages. Nothing here ever blocks
// in a read or a write: messages to send wait in an outbox, frames that arrive wait in an inbox,
// and wait() moves bytes both ways at once while it polls. Both sides may be sending at the same
// moment (blobs one way, need frames the other; stdin one way, output the other), and a caller
// stuck in a write while the runner is stuck in its own would never finish.

#include <poll.h>

#include <cstddef>
#include <deque>
#include <errand/sdk/result.hpp>
#include <optional>
#include <span>
#include <string>

#include "core/remote/wire/frame_reader.hpp"
#include "core/remote/wire/messages.hpp"

namespace errand::remote {

// What wait() returns for, besides the connection ending or one of the caller's own
// descriptors becoming ready.
struct WakeOn {
  bool message = true;  // a message has arrived
  // The outbox holds at most this many bytes (none: not a reason to wake).
  std::optional<std::size_t> unsent_at_most;
};

class RunnerChannel {
 public:
  // Makes both descriptors non-blocking, and has SIGPIPE ignored so that a write to a runner
  // (or ssh) that is gone fails with EPIPE instead of ending the process. The descriptors stay
  // the caller's to close.
  static sdk::Result<RunnerChannel> open(int read_fd, int write_fd);

  // Queues the message; wait() writes it out.
  void send(const wire::Message& message);
  std::size_t unsent_bytes() const noexcept { return outbox_.size() - outbox_sent_; }

  bool has_frame() const noexcept { return !inbox_.empty(); }
  // The next frame that has arrived, if one is waiting, as it came.
  std::optional<wire::Frame> take_frame();
  // The same decoded; a frame that does not decode is an error naming the message and what is
  // wrong with it.
  sdk::Result<std::optional<wire::Message>> take();

  // True once the stream has ended (end of file, or a read or write that failed): nothing more
  // arrives beyond what waits in the inbox, and nothing more is sent.
  bool lost() const noexcept { return lost_; }
  const std::string& lost_reason() const noexcept { return lost_reason_; }

  // Moves bytes until something in wake_on holds, the stream is lost, or one of `others` has an
  // event (their revents are filled in for the caller). Returns at once if that is already so.
  // An error is a stream that broke the framing, or a poll that failed.
  sdk::Result<void> wait(std::span<pollfd> others, WakeOn wake_on = {});

 private:
  RunnerChannel(int read_fd, int write_fd) : read_fd_(read_fd), write_fd_(write_fd) {}
  bool woken(WakeOn wake_on) const noexcept;
  sdk::Result<void> read_available();
  void write_available();
  void lose(std::string reason);

  int read_fd_;
  int write_fd_;
  wire::FrameReader reader_;
  std::deque<wire::Frame> inbox_;
  std::string outbox_;
  std::size_t outbox_sent_ = 0;  // bytes at the front of outbox_ already written
  bool lost_ = false;
  std::string lost_reason_;
};

}  // namespace errand::remote
