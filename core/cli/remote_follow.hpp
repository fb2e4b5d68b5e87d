#pragma once

// After run_call or attach_job: the exit code the CLI ends with, attaching again (from the last
// output shown) when the connection to the runner was lost.

#include <errand/sdk/result.hpp>
#include <string>

#include "core/cli/remote_arguments.hpp"
#include "core/cli/remote_connection.hpp"
#include "core/remote/call/call_outcome.hpp"

namespace errand::cli {

struct FollowContext {
  PeerChoice where;
  std::string job;
  bool forward_stdin = false;
  remote::CallTerminal terminal;
};

// The job's exit code (128 + N for a signal, 0 for a detach); on a lost connection, up to
// three attaches a second apart. A failed call is printed: "could not reach PEER" when ssh
// failed (exit 2), a refusal (exit 2), an interrupt before the job ran (130), anything else
// (exit 1).
int follow_to_the_end(sdk::Result<remote::CallOutcome> outcome, RunnerConnection& connection,
                      const FollowContext& context);

// "errand: MESSAGE" on stderr, and the exit code for an error of errand's own (as above).
int report_call_error(const sdk::Error& error, RunnerConnection& connection);

}  // namespace errand::cli
