// `errand attach [--on PEER] HANDLE`: follows a job already on a runner, its output from the
// start, until it ends (exiting with its code) or the user detaches again.

#include <unistd.h>

#include <iostream>

#include "core/cli/commands.hpp"
#include "core/cli/remote_arguments.hpp"
#include "core/cli/remote_connection.hpp"
#include "core/cli/remote_follow.hpp"
#include "core/cli/remote_interrupts.hpp"
#include "core/remote/call/run_call.hpp"

namespace errand::cli {

int remote_attach_command(const std::vector<std::string>& args) {
  auto parsed = parse_job_command_arguments(
      args, JobCommandShape{.name = "attach", .takes_handle = true, .takes_json = false});
  if (!parsed) {
    std::cerr << "errand: " << parsed.error().message << "\n";
    return 2;
  }
  auto handle = resolve_job_handle(*parsed->handle, parsed->where);
  if (!handle) {
    std::cerr << "errand: " << handle.error().message << "\n";
    return 2;
  }
  PeerChoice where = parsed->where;
  where.peer = handle->peer;

  InterruptPipe interrupts;
  const remote::CallTerminal terminal = process_terminal(interrupts);
  auto connection = RunnerConnection::open(where);
  if (!connection) {
    std::cerr << "errand: " << connection.error().message << "\n";
    return 2;
  }
  // This stdin is not the one the job started with: none of it goes to the job.
  auto outcome = remote::attach_job(
      remote::AttachRequest{.job = handle->job, .from = 0, .forward_stdin = false},
      connection->link(), terminal);
  return follow_to_the_end(
      std::move(outcome), *connection,
      FollowContext{
          .where = where, .job = handle->job, .forward_stdin = false, .terminal = terminal});
}

}  // namespace errand::cli
