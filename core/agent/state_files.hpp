#pragma once

// Writing files into a session's state directory, which the agent can write too: a symlink it
// planted must never turn a daemon write into a write somewhere else on the host.

#include <sys/types.h>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string_view>

namespace errand::agent {

// Creates relative's parent directories beneath root and replaces the file atomically. Refuses
// an absolute path or one with "..", and any symlink on the way (including the file itself,
// which is replaced rather than followed).
sdk::Result<void> write_beneath(const std::filesystem::path& root,
                                const std::filesystem::path& relative, std::string_view content,
                                mode_t mode = 0644);

}  // namespace errand::agent
