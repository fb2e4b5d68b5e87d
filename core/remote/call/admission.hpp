#pragma once

// Asking the runner to take the job: admit, the manifest after it when the job has a snapshot,
// the blobs the runner answers it lacks, and then its admitted or refused. Notes on what is
// shipped go to the user's stderr on the way.

#include <errand/sdk/result.hpp>

#include "core/remote/call/call_endpoints.hpp"
#include "core/remote/call/call_request.hpp"
#include "core/remote/call/runner_channel.hpp"
#include "core/remote/wire/messages.hpp"

namespace errand::remote {

// After the hellos: the runner's admitted for request.job. Errors: its refusal (code and
// message); a file changed since it was selected; a message the protocol does not allow here;
// a lost connection; the user's interrupt.
sdk::Result<wire::Admitted> admit_job(RunnerChannel& channel, const CallRequest& request,
                                      const CallTerminal& terminal);

}  // namespace errand::remote
