#pragma once

// A session's policy: everything the launcher enforces, decided by the plugin before launch and
// written to the session's record directory as policy.toml. The launcher reads the same file,
// so what an operator reads there is exactly what was enforced.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/broker_relay/broker_relay.hpp"

namespace errand::bailey {

// Where things sit inside every sandbox.
inline constexpr const char* kWorkspace = "/workspace";
inline constexpr const char* kState = "/state";
inline constexpr const char* kHome = "/state/home";
using broker_relay::kBrokerSocketInside;
using broker_relay::kRelayAddress;
using broker_relay::kRelayPort;

enum class NetworkPlan {
  none,    // an empty network namespace: loopback only, nothing behind it
  broker,  // a private namespace whose one way out is the relay to the broker's socket
  host,    // the host's namespace; TCP held to the allowed ports by Landlock
  pasta,   // a private namespace wired to the outside by pasta; TCP held to the allowed ports
};

const char* to_string(NetworkPlan plan) noexcept;
bool network_plan_from_string(const std::string& text, NetworkPlan& out) noexcept;

// A host path made visible inside. Read-only unless writable; Landlock decides the rest.
struct BindMount {
  std::string source;
  std::string target;
  bool writable = false;
};

struct Policy {
  std::string session_id;

  std::vector<BindMount> binds;  // parents before children
  std::string resolv_conf;       // host file bound read-only at /etc/resolv.conf
  // Landlock grants by path as seen inside, after the pivot. list allows reading directory
  // entries only (the skeleton of the new root), never file contents.
  std::vector<std::string> list;
  std::vector<std::string> read;
  std::vector<std::string> write;
  std::vector<std::string> execute;
  // Beneath these, named unix sockets may be connected to (Landlock ABI 9 handles the right).
  std::vector<std::string> unix_connect;

  // The agent's environment, built from nothing: fixed values, and names whose values the
  // launcher receives in its own environment (stand-ins and proxy credentials never touch disk).
  std::vector<std::pair<std::string, std::string>> env_set;
  std::vector<std::string> env_pass;

  NetworkPlan network = NetworkPlan::none;
  std::string broker_socket;  // host path, bound at kBrokerSocketInside
  // Landlock TCP rules, with host and pasta only: connects to connect_ports, binds on (and
  // connects to) bind_ports. Under broker and none the namespace holds TCP and both are empty.
  std::vector<std::uint16_t> connect_ports;
  std::vector<std::uint16_t> bind_ports;
  std::string pasta_path;  // with NetworkPlan::pasta

  std::uint64_t file_max = 0;
  std::uint64_t tmp_size = 0;
  std::uint64_t shm_size = 0;
  std::uint64_t memory = 0;
  std::uint64_t pids = 0;
  std::uint64_t cpu_millis = 0;  // 1000 per cpu
  std::uint64_t disk = 0;        // measured by the plugin, listed for the reader
  // Files the launcher writes "0" to, joining the session's cgroups before it creates the
  // sandbox, so everything the sandbox runs is born inside them.
  std::vector<std::string> cgroup_join;

  std::vector<std::string> argv;
  std::string cwd = kWorkspace;
  // The Landlock ABI the plugin's probe saw; the launcher refuses to run on a lower one.
  int landlock_abi = 0;
};

}  // namespace errand::bailey
