#include "core/remote/call/runner_channel.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <utility>
#include <vector>

#include "common/ignore_sigpipe.hpp"
#include "core/remote/call/terminal_writes.hpp"

namespace errand::remote {

namespace {

sdk::Result<void> make_fd_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
    return sdk::make_error("cannot use the connection to the runner: " + call_os_reason(errno));
  return {};
}

// One read's worth: a frame's data arrives over several, which is fine.
constexpr std::size_t kChannelReadBytes = 256 * 1024;

}  // namespace

sdk::Result<RunnerChannel> RunnerChannel::open(int read_fd, int write_fd) {
  if (auto made = make_fd_nonblocking(read_fd); !made) return made.error();
  if (write_fd != read_fd) {
    if (auto made = make_fd_nonblocking(write_fd); !made) return made.error();
  }
  common::ignore_sigpipe_once();
  return RunnerChannel(read_fd, write_fd);
}

void RunnerChannel::send(const wire::Message& message) {
  // Bytes already written are dropped once they are most of the outbox, so it does not grow
  // with everything ever sent.
  if (outbox_sent_ > 0 && outbox_sent_ >= outbox_.size() / 2) {
    outbox_.erase(0, outbox_sent_);
    outbox_sent_ = 0;
  }
  wire::append_message(outbox_, message);
}

std::optional<wire::Frame> RunnerChannel::take_frame() {
  if (inbox_.empty()) return std::nullopt;
  auto frame = std::move(inbox_.front());
  inbox_.pop_front();
  return frame;
}

sdk::Result<std::optional<wire::Message>> RunnerChannel::take() {
  auto frame = take_frame();
  if (!frame) return std::optional<wire::Message>();
  auto message = wire::decode_message(*frame);
  if (!message)
    return sdk::make_error("the runner sent a message this errand cannot read: " +
                           message.error().message);
  return std::optional<wire::Message>(std::move(*message));
}

bool RunnerChannel::woken(WakeOn wake_on) const noexcept {
  return lost_ || (wake_on.message && !inbox_.empty()) ||
         (wake_on.unsent_at_most && unsent_bytes() <= *wake_on.unsent_at_most);
}

sdk::Result<void> RunnerChannel::wait(std::span<pollfd> others, WakeOn wake_on) {
  std::vector<pollfd> fds;
  while (!woken(wake_on)) {
    fds.clear();
    fds.push_back({.fd = read_fd_, .events = POLLIN, .revents = 0});
    const bool writing = unsent_bytes() > 0;
    // The same socket may be both; poll takes it twice, once per direction.
    if (writing) fds.push_back({.fd = write_fd_, .events = POLLOUT, .revents = 0});
    const std::size_t first_other = fds.size();
    for (const auto& other : others)
      fds.push_back({.fd = other.fd, .events = other.events, .revents = 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;  // the CLI's signal handler writes its self-pipe as well
      return sdk::make_error("waiting for the runner: " + call_os_reason(errno));
    }
    if (fds[0].revents != 0) {
      if (auto read = read_available(); !read) return read;
    }
    if (writing && fds[1].revents != 0) write_available();
    bool other_ready = false;
    for (std::size_t i = 0; i < others.size(); ++i) {
      others[i].revents = fds[first_other + i].revents;
      other_ready = other_ready || others[i].revents != 0;
    }
    if (other_ready) return {};
  }
  return {};
}

sdk::Result<void> RunnerChannel::read_available() {
  std::array<char, kChannelReadBytes> buffer;
  const ssize_t got = ::read(read_fd_, buffer.data(), buffer.size());
  if (got < 0) {
    if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) return {};
    lose("reading from the runner: " + call_os_reason(errno));
    return {};
  }
  if (got == 0) {
    lose(reader_.check_clean_end() ? "the runner closed the connection"
                                   : "the connection closed partway through a message");
    return {};
  }
  reader_.feed(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
  for (;;) {
    auto frame = reader_.next();
    if (!frame)
      return sdk::make_error("the runner's stream broke the framing: " + frame.error().message);
    if (!*frame) return {};
    inbox_.push_back(std::move(**frame));
  }
}

void RunnerChannel::write_available() {
  const ssize_t wrote =
      ::write(write_fd_, outbox_.data() + outbox_sent_, outbox_.size() - outbox_sent_);
  if (wrote < 0) {
    if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) return;
    lose("writing to the runner: " + call_os_reason(errno));
    return;
  }
  outbox_sent_ += static_cast<std::size_t>(wrote);
}

void RunnerChannel::lose(std::string reason) {
  if (lost_) return;
  lost_ = true;
  lost_reason_ = std::move(reason);
  // Nothing more can be sent; what is queued is dropped so no one waits for it to leave.
  outbox_.clear();
  outbox_sent_ = 0;
}

}  // namespace errand::remote
