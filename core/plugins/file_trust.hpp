#pragma once

#include <filesystem>
#include <string>

namespace errand::plugins {

// A plugin runs as the daemon, with the chat token in reach, so whoever can replace its file
// (or rename things in a directory above it) can run code as the daemon. Empty when the file,
// after following symlinks, and every directory above both the link and the file belong to
// root or to the daemon's own user and are writable by nobody else; otherwise the sentence
// refusing it, naming the offending path and how to fix it. A world-writable directory with
// the sticky bit (such as /tmp) is accepted: others may not rename or remove what is not
// theirs in it.
std::string untrusted_plugin_file(const std::filesystem::path& file);

}  // namespace errand::plugins
