#pragma once

// The places on the host that setup reads and writes, gathered so a test can point them into a
// temporary directory. The defaults are the real host's.

#include <filesystem>

namespace errand::setup {

struct HostPaths {
  std::filesystem::path config = "/etc/errand/config.json";
  // Present while systemd is PID 1 (sd_booted's test), and while OpenRC runs the host.
  std::filesystem::path systemd_running = "/run/systemd/system";
  std::filesystem::path openrc_running = "/run/openrc";
  // Where the package installs the systemd unit (either), and the OpenRC script.
  std::filesystem::path systemd_unit_vendor = "/usr/lib/systemd/system/errand.service";
  std::filesystem::path systemd_unit_local = "/etc/systemd/system/errand.service";
  std::filesystem::path openrc_script = "/etc/init.d/errand";
  std::filesystem::path log_dir = "/var/log/errand";
  std::filesystem::path run_dir = "/run/errand";
  std::filesystem::path cgroup_mount = "/sys/fs/cgroup";
  // Where setup installs the bundled agents (agents/package-lock.json): the daemon looks there,
  // so it must stay agent::system_agents_root (a unit test compares the two).
  std::filesystem::path agents = "/opt/errand/agents";
};

}  // namespace errand::setup
