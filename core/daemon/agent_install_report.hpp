#pragma once

// The agent's install as every bailey session will see it, for the start-up report: the
// program sessions run and the host directories granted to all of them (read and execute).
// A report that left them out would describe a tighter boundary than the one in force.

#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>

namespace errand::daemon {

// The report's lines; a program not yet installed is a line saying so (sessions fail until it
// is). Refused, stopping the daemon, when an install directory may not be granted.
sdk::Result<std::string> agent_install_report(const boost::json::object& config,
                                              const std::filesystem::path& config_file);

}  // namespace errand::daemon
