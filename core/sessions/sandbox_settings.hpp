#pragma once

// The sandbox.* settings a session is launched with, read once from the effective configuration
// when the session starts, so a later reload never changes a running sandbox. The configuration
// handed here after a reload already holds the network, egress and host-address fields at their
// start-up values (core/config/reload.hpp), so a new session meets the broker the daemon
// started with.

#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace errand::sessions {

struct SandboxSettings {
  sdk::SandboxLimits limits;
  sdk::NetworkMode network = sdk::NetworkMode::restricted;
  sdk::EgressMode egress = sdk::EgressMode::proxy;
  std::vector<std::uint16_t> egress_ports{443};
  std::vector<std::uint16_t> listen_ports;  // sandbox.listenPorts
  std::uint64_t disk_inodes = 0;            // sandbox.diskInodes
  bool hide_host_address = false;
  std::vector<std::pair<std::string, std::string>> env_extra;  // sandbox.env
  std::vector<std::filesystem::path> path_extra;
  std::vector<std::filesystem::path> extra_read, extra_write, extra_execute;

  // Sessions meet the broker only where it is the way out: egress through the proxy on a
  // restricted network.
  bool uses_broker() const noexcept {
    return network == sdk::NetworkMode::restricted && egress == sdk::EgressMode::proxy;
  }
};

// Every error names the key and says what is wrong with it.
sdk::Result<SandboxSettings> sandbox_settings_from_config(const boost::json::object& config);

// The parts of a LaunchSpec the settings decide.
void apply_sandbox_settings(const SandboxSettings& settings, sdk::LaunchSpec& spec);

}  // namespace errand::sessions
