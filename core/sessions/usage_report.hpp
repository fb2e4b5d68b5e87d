#pragma once

// The answer to !usage: what the newest answers of the model providers said about their limits,
// as the broker read them from their headers. errand makes no call of its own to find out unless
// `!usage refresh` asks for one, so before then or a session's first provider call there is
// nothing to tell, and the answer says so.

#include <chrono>
#include <errand/sdk/egress_broker.hpp>
#include <map>
#include <string>

namespace errand::sessions {

using UsageByProvider = std::map<std::string, sdk::ProviderUsage>;

// `configured` (agent.provider) comes first and is always mentioned; any other provider that
// reported is listed after it.
std::string describe_usage(const UsageByProvider& usage, const std::string& configured,
                           std::chrono::system_clock::time_point now);

}  // namespace errand::sessions
