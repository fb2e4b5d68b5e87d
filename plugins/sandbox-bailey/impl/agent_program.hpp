#pragma once

// Which file the sandbox runs as the agent, decided in the daemon. Inside, PATH starts with
// /state/home/bin, which the session writes and which moves over on resume: a program looked
// up there by name would be whatever an earlier session planted. So the launcher only ever
// execs an absolute path, and a bare name is looked up here, on the host, in the directories
// bound read-only at the same path.

#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <string>

namespace errand::bailey {

// argv[0] when it is absolute; else the first executable regular file of that name in
// host_program_directories(spec). Refused, naming where it looked, when there is none.
sdk::Result<std::string> locate_agent_program(const sdk::LaunchSpec& spec);

// Refuses a program path that is relative or lies where the session can write (its own
// directories, /tmp, /dev/shm, a sandbox.policyExtra.write grant). Pure.
sdk::Result<void> check_agent_program(const std::string& program, const sdk::LaunchSpec& spec);

}  // namespace errand::bailey
