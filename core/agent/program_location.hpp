#pragma once

// Finding an agent's install on the host, as `which` would, so the sandbox can grant its
// directories (the one the command is found in and, when that is a symlink, the one it leads
// to) and run the program by the absolute path found here, never by a name looked up inside,
// where the first directory on PATH is the session's own, writable home. An npm install
// (claude-agent-acp, codex-acp) is a tree: the script the link leads to loads its dependencies
// from the node_modules directories above it, so the outermost one is granted too.

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::agent {

// The first executable regular file named program on search_path (colon separated). A program
// containing a slash is taken as given.
std::optional<std::filesystem::path> find_program(std::string_view program,
                                                  std::string_view search_path);

// When program is a script (its first line "#!"), the interpreter that line names, if it is not
// there: an absolute path that is not an executable file, or the program `/usr/bin/env` is
// asked for, not on search_path. Empty when the program is no script or its interpreter is
// found. The bundled agents are Node.js scripts, and a host can hold their npm install without
// node (copied there, or nodejs removed since).
std::optional<std::string> missing_interpreter(const std::filesystem::path& program,
                                               std::string_view search_path);

// The directory found on the path, the directory of its resolved real file and, when either
// lies inside a node_modules tree, the outermost node_modules directory, without duplicates.
std::vector<std::filesystem::path> install_directories(const std::filesystem::path& found);

// Whether dir may be granted to every session as an install directory; refused (saying why)
// when it is the daemon's home (or holds it), or holds the configuration file with the chat
// token and the providers' keys.
sdk::Result<void> check_install_directory(const std::filesystem::path& dir,
                                          const std::filesystem::path& home,
                                          const std::filesystem::path& config_file);

// The daemon account's home: $HOME, else the password database's entry; empty if neither.
std::filesystem::path daemon_home();

}  // namespace errand::agent
