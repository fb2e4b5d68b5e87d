#pragma once

// Where the delegate command a session is given lives on the host: `tools/delegate` beside the
// broker plugin that answers it, so the command and the broker always come from one install.

#include <errand/sdk/result.hpp>
#include <filesystem>

namespace errand::sessions {

// The directory beside a broker plugin at broker_plugin that holds errand's programs for agents.
std::filesystem::path tools_dir_beside(const std::filesystem::path& broker_plugin);

// Checks that tools_dir holds the delegate command as an executable regular file; the error is
// a sentence naming the path and what is wrong, for a start that must not go on without it.
sdk::Result<void> delegate_tools_dir(const std::filesystem::path& tools_dir);

}  // namespace errand::sessions
