#pragma once

// `run <command>`: /bin/sh -c in its own process group, output (stdout and stderr together)
// reported as it arrives, killed as a group when the prompt is cancelled.

#include "tests/fakes/agent/cancellation.hpp"

#include <functional>
#include <string>

namespace fake_agent {

struct CommandResult {
  int exit_status = -1;  // exit code, or 128 + signal
  std::string output;
  bool cancelled = false;
  std::string error;  // set when the command could not be started
};

CommandResult run_shell(const std::string& command, Cancellation& cancellation,
                        const std::function<void(const std::string& output_so_far)>& on_output);

}  // namespace fake_agent
