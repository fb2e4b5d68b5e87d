#include "core/remote/call/runner_waits.hpp"

#include <poll.h>
#include <unistd.h>

#include <fmt/format.h>
#include <array>
#include <cerrno>
#include <span>

namespace errand::remote {

namespace {

sdk::Result<void> wait_before_admission(RunnerChannel& channel, WakeOn wake_on, int interrupts_fd,
                                        std::string_view before) {
  std::array<pollfd, 1> interrupts{{{.fd = interrupts_fd, .events = POLLIN, .revents = 0}}};
  std::span<pollfd> others;
  if (interrupts_fd >= 0) others = interrupts;
  for (;;) {
    if (auto waited = channel.wait(others, wake_on); !waited) return waited;
    const bool message_waits = wake_on.message && channel.has_frame();
    const bool room = wake_on.unsent_at_most && channel.unsent_bytes() <= *wake_on.unsent_at_most;
    if (message_waits || (room && !channel.lost())) return {};
    if (channel.lost())
      return sdk::make_error(
          fmt::format("the connection to the runner ended {}: {}", before, channel.lost_reason()),
          sdk::Error::Kind::unavailable);
    if (!others.empty() && interrupts[0].revents != 0) {
      char byte;  // this interrupt is spent on cancelling
      const ssize_t got = ::read(interrupts_fd, &byte, 1);
      if (got == 1)
        return sdk::make_error(fmt::format("interrupted {}", before), sdk::Error::Kind::cancelled);
      // The self-pipe closed (or failed): no interrupt can come any more.
      if (got == 0 || (errno != EINTR && errno != EAGAIN)) others = {};
    }
  }
}

}  // namespace

sdk::Result<void> await_runner_message(RunnerChannel& channel, int interrupts_fd,
                                       std::string_view before) {
  return wait_before_admission(channel, WakeOn{.message = true, .unsent_at_most = {}},
                               interrupts_fd, before);
}

sdk::Result<void> await_room_to_send(RunnerChannel& channel, std::size_t limit, int interrupts_fd,
                                     std::string_view before) {
  return wait_before_admission(channel, WakeOn{.message = false, .unsent_at_most = limit},
                               interrupts_fd, before);
}

void flush_to_runner(RunnerChannel& channel) {
  while (channel.unsent_bytes() > 0 && !channel.lost()) {
    if (!channel.wait({}, WakeOn{.message = false, .unsent_at_most = 0})) return;
  }
}

}  // namespace errand::remote
