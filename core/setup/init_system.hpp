#pragma once

// Which init system runs this host, and where errand's service for it is installed.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/setup/host_paths.hpp"

namespace errand::setup {

enum class InitSystem { systemd, openrc, none };

InitSystem detect_init(const HostPaths& host);
std::string init_name(InitSystem init);
// "systemd", "openrc" or "none": how a backend's setup program is told (backend_hook.hpp).
std::string_view init_word(InitSystem init);

// The installed systemd unit (the administrator's copy in /etc first), or nothing.
std::optional<std::filesystem::path> installed_systemd_unit(const HostPaths& host);

// Whether a systemd unit file sets Delegate=yes in its [Service] section.
bool unit_delegates(const std::filesystem::path& unit);

}  // namespace errand::setup
