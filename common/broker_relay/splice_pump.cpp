#include "common/broker_relay/splice_pump.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/ignore_sigpipe.hpp"

namespace errand::broker_relay {

namespace {

// What a pipe is asked to hold: bytes in flight per direction. Larger pipes cost the user's pipe
// page allowance (fs.pipe-user-pages-soft) and leave the bytes colder in cache by the time the
// destination reads them; smaller ones mean more wakeups per megabyte.
constexpr int kPipeBytes = 256 * 1024;
// The user-space buffer when a pipe cannot be used.
constexpr std::size_t kCopyBytes = 64 * 1024;
// Bytes one run moves before it yields, so one busy tunnel cannot hold a loop or a strand.
constexpr std::uint64_t kBurstBytes = 4 * 1024 * 1024;

bool would_block(int error) {
  return error == EAGAIN || error == EWOULDBLOCK;
}

}  // namespace

int open_pipe(int fds[2], int flags) {
  return ::pipe2(fds, flags);
}

SplicePump::SplicePump(PipeOpener opener) {
  // splice() into a socket whose reader has gone raises SIGPIPE; the pump reports the tunnel
  // failed instead.
  common::ignore_sigpipe_once();
  if (opener(pipe_, O_NONBLOCK | O_CLOEXEC) != 0) {
    pipe_[0] = pipe_[1] = -1;
    fall_back_to_copying();
    return;
  }
  // A pipe keeps its default size when the user's pipe allowance is spent; splice copes.
  ::fcntl(pipe_[1], F_SETPIPE_SZ, kPipeBytes);
  const int size = ::fcntl(pipe_[1], F_GETPIPE_SZ);
  capacity_ = size > 0 ? static_cast<std::size_t>(size) : 4096;
}

SplicePump::~SplicePump() {
  if (pipe_[0] >= 0) ::close(pipe_[0]);
  if (pipe_[1] >= 0) ::close(pipe_[1]);
}

void SplicePump::fall_back_to_copying() {
  const std::size_t size = std::max(kCopyBytes, held_);
  buffer_ = std::make_unique<char[]>(size);
  if (pipe_[0] >= 0) {
    // Bytes already in the pipe move to the buffer, in order, before the pipe goes.
    std::size_t got = 0;
    while (got < held_) {
      const ssize_t n = ::read(pipe_[0], buffer_.get() + got, held_ - got);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    held_ = got;
    copy_offset_ = 0;
    ::close(pipe_[0]);
    ::close(pipe_[1]);
    pipe_[0] = pipe_[1] = -1;
  }
  capacity_ = size;
}

long SplicePump::fill(int from) {
  if (spliced())
    return ::splice(from, nullptr, pipe_[1], nullptr, capacity_, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  return ::recv(from, buffer_.get(), capacity_, MSG_DONTWAIT);
}

long SplicePump::drain(int to) {
  if (spliced())
    return ::splice(pipe_[0], nullptr, to, nullptr, held_, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  return ::send(to, buffer_.get() + copy_offset_, held_, MSG_DONTWAIT | MSG_NOSIGNAL);
}

SplicePump::Step SplicePump::run(int from, int to) {
  if (finished_) return Step::finished;
  std::uint64_t burst = 0;
  while (true) {
    while (held_ > 0) {
      const long put = drain(to);
      if (put > 0) {
        held_ -= static_cast<std::size_t>(put);
        if (!spliced()) copy_offset_ += static_cast<std::size_t>(put);
        moved_ += static_cast<std::uint64_t>(put);
        burst += static_cast<std::uint64_t>(put);
        continue;
      }
      if (put < 0 && errno == EINTR) continue;
      if (put < 0 && would_block(errno)) return Step::wait_writable;
      if (put < 0 && errno == EINVAL && spliced()) {
        fall_back_to_copying();
        continue;
      }
      return Step::failed;
    }
    if (source_ended_) {
      ::shutdown(to, SHUT_WR);
      finished_ = true;
      return Step::finished;
    }
    if (burst >= kBurstBytes) return Step::yield;
    const long got = fill(from);
    if (got > 0) {
      held_ = static_cast<std::size_t>(got);
      copy_offset_ = 0;
      continue;
    }
    if (got == 0) {
      source_ended_ = true;
      continue;
    }
    if (errno == EINTR) continue;
    if (would_block(errno)) return Step::wait_readable;
    if (errno == EINVAL && spliced()) {
      fall_back_to_copying();
      continue;
    }
    return Step::failed;
  }
}

}  // namespace errand::broker_relay
