#pragma once

// The agent's environment, built from nothing. Three layers, later ones winning: bailey's own
// floor (PATH, HOME, TMPDIR, ...), sandbox.env, then what the core sets for the session
// (stand-ins, proxy variables, base URLs). Nothing of the daemon's own environment is read.

#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <string>
#include <utility>
#include <vector>

namespace errand::bailey {

struct AgentEnvironment {
  // Written into policy.toml with their values.
  std::vector<std::pair<std::string, std::string>> fixed;
  // Set by the core; only the names go on disk, the values travel in the launcher's environment.
  std::vector<std::pair<std::string, std::string>> passed;
};

// The directories of PATH that are the host's, bound read-only at the same path: the agent's
// install dirs, sandbox.pathExtra, then the system's. A bare agent command is looked up here.
std::vector<std::string> host_program_directories(const sdk::LaunchSpec& spec);

// PATH: the tools directory (LaunchSpec::tools_dir, at its host path) when there is one, the
// agent's home bin, then host_program_directories. The tools directory is not searched for the
// agent's own command.
std::string agent_path(const sdk::LaunchSpec& spec);

// Refuses: PATH or HOME from sandbox.env or the core; a provider credential name in sandbox.env
// (it would decide what the agent authenticates as); a malformed name; a NUL in a value.
sdk::Result<AgentEnvironment> build_environment(const sdk::LaunchSpec& spec,
                                                const std::vector<std::string>& credential_names);

bool is_variable_name(const std::string& name);

}  // namespace errand::bailey
