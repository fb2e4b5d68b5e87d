#pragma once

// Waiting on the runner before the job is admitted, when there is nothing to do but wait: the
// user's interrupt then cancels the call, and a lost connection ends it. Each error says what
// had not happened yet (`before`: "before the runner said hello").

#include <cstddef>
#include <errand/sdk/result.hpp>
#include <string_view>

#include "core/remote/call/runner_channel.hpp"

namespace errand::remote {

// Until a message from the runner waits to be taken.
sdk::Result<void> await_runner_message(RunnerChannel& channel, int interrupts_fd,
                                       std::string_view before);

// Until at most `limit` bytes wait to be sent (messages arriving meanwhile are kept).
sdk::Result<void> await_room_to_send(RunnerChannel& channel, std::size_t limit, int interrupts_fd,
                                     std::string_view before);

// Until everything queued has been written, or the connection is gone; for a last message
// (detach) after which the call ends whatever happens.
void flush_to_runner(RunnerChannel& channel);

}  // namespace errand::remote
