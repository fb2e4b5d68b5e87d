#include "core/daemon/agent_install_report.hpp"

#include "core/agent/agent_glue.hpp"
#include "core/agent/agent_kinds.hpp"
#include "core/agent/bundled_agents.hpp"

namespace errand::daemon {

std::string agent_named(const boost::json::object& config) {
  const std::string kind = agent::agent_kind(config);
  if (const auto* bundled = agent::bundled_agent(kind))
    return "  agent: " + kind + ", the bundled agent for " + std::string(bundled->provider_kind) +
           " providers (npm package " + std::string(bundled->package) + ")\n";
  if (kind == agent::kage_kind) return "  agent: kage\n";
  if (kind.empty()) return "  agent: " + agent::agent_program(config) + "\n";
  return "  agent: " + kind + ", running " + agent::agent_program(config) + "\n";
}

sdk::Result<std::string> agent_install_report(const boost::json::object& config,
                                              const std::filesystem::path& config_file,
                                              bool from_host_install,
                                              std::vector<std::filesystem::path> bundled_roots) {
  std::string out = agent_named(config);
  agent::LaunchInputs inputs;
  inputs.config = &config;
  inputs.config_file = config_file;
  inputs.bundled_roots = std::move(bundled_roots);
  agent::AgentLaunch launch;
  launch.argv = {agent::agent_program(config)};
  if (!from_host_install) {
    const auto* bundled = agent::bundled_agent(agent::agent_kind(config));
    const bool image_install = bundled != nullptr && launch.argv.front() == bundled->kind;
    return out + "  agent program: " +
           (image_install
                ? (agent::bundled_bin_dir(std::filesystem::path(agent::system_agents_root)) /
                   launch.argv.front())
                      .string()
                : launch.argv.front()) +
           ", the sandbox image's own install\n";
  }
  if (auto placed = agent::place_agent_install(inputs, launch); !placed) {
    if (placed.error().kind == sdk::Error::Kind::not_found)
      return out + "  note: " + placed.error().message + "\n";
    return placed.error();
  }
  out += "  agent program: " + launch.argv.front() + "\n";
  for (const auto& dir : launch.agent_dirs)
    out += "  agent install directory, readable and executable in every session: " + dir.string() +
           "\n";
  return out;
}

}  // namespace errand::daemon
