#pragma once

#include <errand/sdk/result.hpp>
#include <filesystem>

namespace errand::plugins {

// A plugin runs as the daemon, with the chat token in reach, so whoever can replace its file
// (or rename things in a directory above it) can run code as the daemon. Fine when the file,
// after following symlinks, and every directory above both the link and the file belong to
// root or to the daemon's own user and are writable by nobody else; otherwise refused, with
// the sentence naming the offending path and how to fix it. A world-writable directory with
// the sticky bit (such as /tmp) is accepted: others may not rename or remove what is not
// theirs in it.
sdk::Result<void> check_plugin_file_trust(const std::filesystem::path& file);

}  // namespace errand::plugins
