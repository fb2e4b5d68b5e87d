#include "core/daemon/agent_install_report.hpp"

#include "core/agent/agent_glue.hpp"

namespace errand::daemon {

sdk::Result<std::string> agent_install_report(const boost::json::object& config,
                                              const std::filesystem::path& config_file) {
  agent::LaunchInputs inputs;
  inputs.config = &config;
  inputs.config_file = config_file;
  agent::AgentLaunch launch;
  launch.argv = {agent::agent_program(config)};
  if (auto placed = agent::place_agent_install(inputs, launch); !placed) {
    if (placed.error().kind == sdk::Error::Kind::not_found)
      return "  note: " + placed.error().message + "\n";
    return placed.error();
  }
  std::string out = "  agent program: " + launch.argv.front() + "\n";
  for (const auto& dir : launch.agent_dirs)
    out += "  agent install directory, readable and executable in every session: " + dir.string() +
           "\n";
  return out;
}

}  // namespace errand::daemon
