#pragma once

// Following an admitted (or attached) job to its end: its output onto the terminal's stdout and
// stderr, in order and each frame once; its place in the queue onto stderr; the user's
// interrupts, stdin and Ctrl-D to the runner.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <string>

#include "core/remote/call/call_endpoints.hpp"
#include "core/remote/call/call_outcome.hpp"
#include "core/remote/call/runner_channel.hpp"

namespace errand::remote {

struct FollowSettings {
  std::string job;
  std::string handle;       // job_handle(peer, job), for the notes
  std::uint64_t after = 0;  // the last output number already shown; the next must be after+1
  // Whether a stdin that is not a terminal goes to the job (in pieces, then an empty input at
  // its end). A terminal's stdin never does; its end (Ctrl-D) detaches either way.
  bool forward_stdin = true;
  // The queue place already said (the admission's), so the runner's queued frame that repeats
  // it is not said twice; 0 when none was.
  std::uint64_t shown_position = 0;
};

// Until the job's end (its exit code, or 128 + the signal), a detach (exit 0), or the
// connection's loss (with the last output number shown, to attach again from). Errors: a
// refusal, an output number out of order, a message the protocol does not allow here, output
// that cannot be written to the terminal.
//
// Interrupts: the first sends the job INT, every later one KILL.
sdk::Result<CallOutcome> follow_job(RunnerChannel& channel, const CallTerminal& terminal,
                                    const FollowSettings& settings);

}  // namespace errand::remote
