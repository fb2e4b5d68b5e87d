#pragma once

// What `errand -- CMD` asks a runner to run: the command, its environment, where in the tree it
// starts, and the tree itself (or none, with --no-snapshot). The CLI gathers it; run_call sends
// it.

#include <errand/sdk/result.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/remote/snapshot/file_selection.hpp"
#include "core/remote/wire/messages.hpp"

namespace errand::remote {

struct CallRequest {
  // Made by the CLI (make_job_id) before it connects, so that a retried admission names the
  // same job.
  std::string job;
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;
  // Where the command starts, relative to the snapshot's root ('/'-separated; empty: the root).
  std::string workdir;
  // The files to ship; nothing with --no-snapshot, when the job starts in an empty workspace.
  std::optional<Selection> snapshot;
  // Print the job's handle and leave it running instead of following it.
  bool detach = false;
};

// Refuses, with a sentence for the user, a request the runner would refuse anyway or that
// could not mean what the user meant: no command, a malformed job id, or a working directory
// other than the root without a snapshot (an empty workspace has no such directory).
sdk::Result<void> check_call_request(const CallRequest& request);

// The admit message that asks for the request.
wire::Admit admit_message(const CallRequest& request);

}  // namespace errand::remote
