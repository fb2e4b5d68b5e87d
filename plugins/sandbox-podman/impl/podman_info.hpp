#pragma once

// What `podman info --format json` says about the host and the account, reduced to the facts
// the probe judges. Parsing is separate from running podman so recorded answers can be tested.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace errand::podman {

struct PodmanInfo {
  std::string version;  // version.Version, e.g. "4.3.1"
  bool rootless = false;
  std::string cgroup_version;  // "v1" or "v2"
  std::string cgroup_manager;  // "cgroupfs" or "systemd"
  // The controllers the account may use; empty on cgroup v1 rootless, where there are none.
  std::vector<std::string> cgroup_controllers;
  std::string runtime_name;
  std::string runtime_path;
  std::string runtime_version;  // the first line of what the runtime printed
  // Ids mapped beyond the account's own: what /etc/subuid and /etc/subgid gave it, as the user
  // namespace podman made actually holds them.
  std::uint64_t subordinate_uids = 0;
  std::uint64_t subordinate_gids = 0;
  std::string graph_driver;
  std::string event_logger;
  bool seccomp_enabled = false;
  std::string seccomp_profile_path;

  bool has_controller(std::string_view name) const;
};

sdk::Result<PodmanInfo> parse_podman_info(std::string_view json);

}  // namespace errand::podman
