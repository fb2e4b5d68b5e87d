#pragma once

// Starts the agent as an ordinary child of the daemon: stdio on pipes, its own process group,
// the session's project directory as its working directory, and only the environment given.

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "noop_process.hpp"

namespace errand::bench::noop {

sdk::Result<ChildHandles> spawn_child(const std::filesystem::path& program,
                                      std::vector<std::string> argv, std::vector<std::string> env,
                                      const std::filesystem::path& working_dir);

}  // namespace errand::bench::noop
