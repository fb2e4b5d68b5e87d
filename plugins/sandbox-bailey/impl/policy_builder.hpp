#pragma once

// Turns what the core decided for a session (a LaunchSpec) into the policy the launcher
// enforces. Pure: no filesystem access, so it is tested by reading what it returns.

#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <string>
#include <utility>
#include <vector>

#include "plugins/sandbox-bailey/common/policy.hpp"

namespace errand::bailey {

struct PolicyContext {
  int landlock_abi = 0;
  std::string resolv_conf;  // errand's own, written under the daemon's state dir
  std::vector<std::string> cgroup_join;
  std::string pasta_path;     // empty when pasta is not installed or cannot work here
  std::string pasta_problem;  // why, when pasta_path is empty
  std::vector<std::string> credential_names;
  std::string daemon_state_dir;  // stateDir: records, brokers and every session live here
  std::string project_root;      // projectRoot: every session's project lives here
};

struct BuiltPolicy {
  Policy policy;
  // The values of policy.env_pass, handed to the launcher in its environment.
  std::vector<std::pair<std::string, std::string>> passed_env;
  // Things the operator should know that do not stop the launch.
  std::vector<std::string> warnings;
};

// The system paths every session may read; those that are code may also be executed.
const std::vector<std::string>& system_read_paths();
const std::vector<std::string>& system_execute_paths();

NetworkPlan plan_network(const sdk::LaunchSpec& spec, bool pasta_available);

// Refuses what it cannot enforce as asked: a relative or non-normal grant, one that would
// expose the daemon's state or other sessions' projects or cover a path the sandbox places
// itself, a broker mode without a broker socket, and every environment refusal.
sdk::Result<BuiltPolicy> build_policy(const sdk::LaunchSpec& spec, const PolicyContext& context);

// The same grant checks, for validate_policy.
sdk::Result<void> check_grant(const std::string& path, const std::string& what,
                              const std::string& daemon_state_dir, const std::string& project_root);

}  // namespace errand::bailey
