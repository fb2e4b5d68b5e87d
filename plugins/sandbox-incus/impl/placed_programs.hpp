#pragma once

// errand's own programs copied to where instances can mount them: the project's disk paths
// (restricted.devices.disk.paths) cover the daemon's state directory, not the plugin's install
// directory. Each file is staged and renamed into place, so an instance of a daemon still
// running never mounts half a file.

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <system_error>

namespace errand::incus {

// Copies source to target (mode 0755) by way of target.new.
std::error_code place_program(const std::filesystem::path& source,
                              const std::filesystem::path& target);

// Copies every regular file of tools_dir (LaunchSpec::tools_dir) into incus_dir/tools (mode
// 0755) and returns that directory; the error names the file and why.
sdk::Result<std::filesystem::path> place_tools(const std::filesystem::path& tools_dir,
                                               const std::filesystem::path& incus_dir);

}  // namespace errand::incus
