#pragma once

// The agent as sessions will run it, for the start-up report and `errand config check`: which
// agent, and, where it runs from the host's install (bailey), the program sessions run and the
// host directories granted to all of them (read and execute). A report that left them out would
// describe a tighter boundary than the one in force.

#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>
#include <vector>

namespace errand::daemon {

// One line naming agent.kind: a bundled agent with the dialect it speaks, kage, or the acp
// agent's program.
std::string agent_named(const boost::json::object& config);

// The report's lines (the first is agent_named's). from_host_install: the backend runs the
// host's install, which is looked for; otherwise the image's install is named. A program not
// yet installed is a line saying so and what installs it (sessions fail until it is). Refused,
// stopping the daemon, when an install directory may not be granted. bundled_roots: where a
// bundled agent is looked for (empty: the daemon's own, bundled_agents.hpp).
sdk::Result<std::string> agent_install_report(
    const boost::json::object& config, const std::filesystem::path& config_file,
    bool from_host_install = true, std::vector<std::filesystem::path> bundled_roots = {});

}  // namespace errand::daemon
