#pragma once

// The parts of the effective configuration bailey reads: the sandbox section and the provider
// credential names sandbox.env may not set.

#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <string>
#include <utility>
#include <vector>

namespace errand::bailey {

struct BaileySettings {
  sdk::NetworkMode network = sdk::NetworkMode::restricted;
  sdk::EgressMode egress = sdk::EgressMode::proxy;
  std::vector<std::uint16_t> egress_ports{443};
  std::vector<std::uint16_t> listen_ports;
  std::uint64_t disk_inodes = 0;  // sandbox.diskInodes
  bool hide_host_address = false;
  bool require_full_enforcement = true;
  sdk::SandboxLimits limits;
  std::vector<std::string> extra_read, extra_write, extra_execute;
  std::vector<std::string> path_extra;
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> credential_names;
  bool image_set = false;  // sandbox.image changed from its default: podman's, inert here
  std::string project_root;
  std::string state_dir;
};

// Reads the documented defaults for anything absent; refuses a value of the wrong type.
sdk::Result<BaileySettings> read_settings(const boost::json::object& config);

}  // namespace errand::bailey
