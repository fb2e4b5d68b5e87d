#pragma once

// A share of the host, as sandbox.memory and sandbox.cpus take one: "80%" is four fifths of the
// host's memory or CPUs. The value is resolved against the host when a policy is built
// (core/sandbox/host_capacity.hpp), so one configuration suits machines of any size.

#include <errand/sdk/result.hpp>
#include <string_view>

namespace errand::config {

// True when the text is written as a share (ends in %), so a caller knows which reading of a
// size-or-share value to hold it to.
bool looks_like_share(std::string_view text);

// The fraction a share names: "80%" is 0.8, "12.5%" is 0.125. A share is a number above 0 and
// at most 100, followed by %; anything else is refused with what was wrong, as the end of a
// sentence that starts with the key ("is \"150%\", which ...").
sdk::Result<double> parse_host_share(std::string_view text);

}  // namespace errand::config
