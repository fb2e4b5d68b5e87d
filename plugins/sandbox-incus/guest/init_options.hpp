#pragma once

// errand-guest-init's command line, which the plugin writes (never the agent or the operator):
//
//   errand-guest-init --uid UID --home DIR --cwd DIR --tmp-size BYTES --shm-size BYTES
//                     [--file-max BYTES] [--broker SOCKET] [--check-syscall-policy]
//                     [--await-network | --ipv4 IFACE=ADDR/PREFIX... --gateway ADDR
//                     [--nameserver ADDR]]
//                     -- PROGRAM [ARGS...]
//
// Every value is given: the plugin owns the guest's layout (it mounts the workspace and state
// directory), so the init repeats none of it. Nothing secret is here: Incus puts an exec's argv
// in a host process's world-readable command line.

#include <sys/types.h>

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <optional>
#include <string>
#include <vector>

#include "plugins/sandbox-incus/guest/static_network.hpp"

namespace errand::incus::guest {

struct InitOptions {
  uid_t uid = 0;                             // the agent's account in the guest
  std::string home;                          // the agent's HOME
  std::string cwd;                           // where the agent starts
  std::uint64_t tmp_bytes = 0;               // the size of the fresh tmpfs on /tmp
  std::uint64_t shm_bytes = 0;               // and on /dev/shm
  std::optional<std::uint64_t> file_max;     // RLIMIT_FSIZE; none: the inherited one
  std::optional<std::string> broker_socket;  // the broker's socket inside; none: no relay
  // Refuse to start the agent unless the guest holds errand's system-call rules
  // (syscall_policy_check.hpp); the plugin always asks, tests outside a guest do not.
  bool check_syscall_policy = false;
  // Wait for the nic's default route before the agent starts (network_wait.hpp): the session
  // keeps the profile's nic (egress open).
  bool await_network = false;
  // The addresses the plugin pinned on the session's kept nics, to configure before the agent
  // starts (static_network.hpp); empty when it pinned none.
  StaticNetwork network;
  std::vector<std::string> program;  // the agent and its arguments
};

sdk::Result<InitOptions> parse_options(int argc, char** argv);

}  // namespace errand::incus::guest
