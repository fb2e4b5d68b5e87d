#pragma once

// How following a job stopped, for the CLI to exit with or to reconnect after.

#include <cstdint>
#include <optional>
#include <string>

namespace errand::remote {

enum class CallEnd {
  ended,            // the runner said the job is over
  detached,         // the user left it running (--detach, or Ctrl-D on a terminal)
  connection_lost,  // the stream to the runner ended before the job did
};

struct CallOutcome {
  CallEnd end = CallEnd::ended;
  // What the CLI exits with: the job's exit status, 128 + N when signal N ended it; 0 when
  // detached; unspecified when the connection was lost (the CLI reconnects instead).
  int exit_code = 0;
  std::optional<int> signal;  // the signal that ended the job, when one did
  // The last output sequence number written to the terminal: where `attach` resumes after a
  // lost connection, so nothing is shown twice or skipped.
  std::uint64_t last_sequence = 0;
  std::string detail;       // the runner's word on how the job ended (end's "detail"), maybe empty
  std::string lost_reason;  // why the connection ended, when it was lost
};

// "connection lost after sequence S (REASON)", for the CLI to print before it attaches again.
std::string connection_lost_sentence(const CallOutcome& outcome);

}  // namespace errand::remote
