#pragma once

// The caller's side of one remote job, start to finish, on the descriptors the CLI opened:
// `errand -- CMD` (run_call) and `errand attach HANDLE` (attach_job).
//
//   run_call:   hello -> admit [+ manifest] -> blobs for each need -> admitted -> follow
//   attach_job: hello -> attach{job, from} -> follow
//
// Following ends with the job's end, a detach, or a lost connection; after the last, the CLI
// attaches again from the outcome's last_sequence, and the output carries on with nothing shown
// twice or skipped.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <string>

#include "core/remote/call/call_endpoints.hpp"
#include "core/remote/call/call_outcome.hpp"
#include "core/remote/call/call_request.hpp"

namespace errand::remote {

// Runs the request on the runner. Notes go to terminal.stderr_fd: what is shipped, how much of
// it the runner lacked, "job HANDLE", the queue position. With request.detach, the handle is
// printed on stdout instead and the call returns (exit 0) once the job is admitted.
sdk::Result<CallOutcome> run_call(const CallRequest& request, const RunnerLink& link,
                                  const CallTerminal& terminal);

struct AttachRequest {
  std::string job;
  std::uint64_t from = 0;  // the last output number already shown; 0 replays from the start
  // Whether a non-terminal stdin goes to the job; off for a plain `errand attach`, whose stdin
  // is not the one the job was started with.
  bool forward_stdin = false;
};

// Follows a job already on the runner, its output after number `from`.
sdk::Result<CallOutcome> attach_job(const AttachRequest& request, const RunnerLink& link,
                                    const CallTerminal& terminal);

}  // namespace errand::remote
