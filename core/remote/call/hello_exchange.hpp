#pragma once

// Each side says hello first, naming the protocol it speaks; a call goes no further with a
// runner that speaks another.

#include <errand/sdk/result.hpp>
#include <string_view>

#include "core/remote/call/runner_channel.hpp"

namespace errand::remote {

// Sends this side's hello (program: "errand 0.1.0") and reads the runner's. A runner speaking
// another protocol version, or refusing ours, is an error saying both sides need errand
// versions that speak the same one.
sdk::Result<void> exchange_hello(RunnerChannel& channel, std::string_view program,
                                 int interrupts_fd);

}  // namespace errand::remote
