#pragma once

// What a session's sandbox must hold it to, decided by the core from the configuration once per
// launch. Backends enforce it (or report, in their probe, what they cannot); none of them reads
// the core's sandbox.* keys. Every value here is the validated one, defaults included: the
// schema is where defaults are written, so a zero below is never a default, only "no limit".

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace errand::sdk {

enum class NetworkMode { none, restricted, open };
enum class EgressMode { proxy, open };

struct SandboxLimits {
  std::uint64_t memory_bytes = 0;  // 0: not limited
  double cpus = 0;
  std::uint64_t pids = 0;
  std::uint64_t file_max_bytes = 0;
  std::uint64_t tmp_bytes = 0;
  std::uint64_t shm_bytes = 0;
  std::uint64_t disk_bytes = 0;   // measured budget over project and state
  std::uint64_t disk_inodes = 0;  // measured budget of files, directories and links
  std::chrono::milliseconds disk_check_max{0};
  std::chrono::milliseconds grace{0};
};

struct SandboxPolicy {
  NetworkMode network = NetworkMode::restricted;
  EgressMode egress = EgressMode::proxy;
  std::vector<std::uint16_t> egress_ports;
  // The TCP ports a session may listen on when it shares a network with others; a backend that
  // gives every session a network of its own meets this by construction.
  std::vector<std::uint16_t> listen_ports;
  // sandbox.egress.allow as written; only an egress block left out altogether means ["*"].
  // The broker gets these through BrokerSessionSpec.
  std::vector<std::string> egress_allow;
  // sandbox.egress.allowInternal: CIDR blocks or addresses, each one the core has parsed and
  // accepted. Kept as text, not parsed ranges, so the SDK's types stay plain values and the
  // parser (common/address_ranges) stays out of the ABI; the broker parses them again with the
  // same parser, which a validated policy cannot fail.
  std::vector<std::string> allow_internal;
  // Asked for; kept only by a backend whose probe declares hides_host_address.
  bool hide_host_address = false;
  SandboxLimits limits;
  std::vector<std::pair<std::string, std::string>> env_extra;  // sandbox.env
  std::vector<std::filesystem::path> path_extra;  // after the agent's dirs, before /usr/bin
  std::vector<std::filesystem::path> extra_read, extra_write, extra_execute;  // policyExtra
  // Variable names sandbox.env may not set: each provider's credentialName.
  std::vector<std::string> reserved_env_names;
  // The daemon's projectRoot and stateDir: no grant may reach into either.
  std::filesystem::path project_root;
  std::filesystem::path state_dir;

  // Sessions meet the broker only where it is the way out: egress through the proxy on a
  // restricted network.
  bool uses_broker() const noexcept {
    return network == NetworkMode::restricted && egress == EgressMode::proxy;
  }
};

}  // namespace errand::sdk
