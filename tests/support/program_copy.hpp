#pragma once

#include <filesystem>
#include <string_view>

namespace errand::test {

// Copies a built program into a fresh directory under /var/tmp and returns the copy's path.
// bailey refuses an agent directory under a path the sandbox places itself (/tmp among them),
// and a checkout, so its build tree, may well live under /tmp. The directory is removed when
// the process exits. Returns the original path when no copy could be made, so the caller's
// own check reports the refusal.
std::filesystem::path copy_outside_tmp(const std::filesystem::path& program,
                                       std::string_view directory_prefix);

// The plugin directory a daemon under test should load from: plugins itself, or, when it lies
// under /tmp, a fresh directory under /var/tmp holding its files (hard-linked where the file
// system allows, else copied) and its tools/ directory, removed when the process exits. The
// core shows sessions the tools/ beside the broker plugin, and bailey refuses one under /tmp.
std::filesystem::path stage_plugins_outside_tmp(const std::filesystem::path& plugins);

}  // namespace errand::test
