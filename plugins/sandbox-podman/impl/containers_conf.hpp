#pragma once

// errand's own containers.conf (plugins/sandbox-podman/containers.conf, built into the plugin),
// written where podman is pointed at it through CONTAINERS_CONF.

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string_view>

namespace errand::podman {

std::string_view containers_conf_text();

// Writes it as dir/containers.conf (dir made 0700 when missing) and returns that path.
sdk::Result<std::filesystem::path> write_containers_conf(const std::filesystem::path& dir);

}  // namespace errand::podman
