#pragma once

// Which daemon started a sandbox: a short hash of its state directory, stable across restarts
// and naming no path. A backend writes it on every sandbox (podman's errand.daemon label,
// Incus's user.errand.daemon key), so one daemon's orphan sweep never removes another's
// sandboxes (two daemons, or a test beside a daemon, on one host).

#include <filesystem>
#include <string>

namespace errand::common {

// 16 lower-case hex digits: FNV-1a of the normalised path.
std::string daemon_mark(const std::filesystem::path& state_dir);

}  // namespace errand::common
