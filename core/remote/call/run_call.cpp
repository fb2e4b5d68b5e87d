#include "core/remote/call/run_call.hpp"

#include <fmt/format.h>

#include "core/remote/call/admission.hpp"
#include "core/remote/call/hello_exchange.hpp"
#include "core/remote/call/job_follower.hpp"
#include "core/remote/call/runner_channel.hpp"
#include "core/remote/call/runner_waits.hpp"
#include "core/remote/call/terminal_writes.hpp"
#include "core/remote/jobs/job_id.hpp"

namespace errand::remote {

namespace {

// Leaves the admitted job running: the runner is told to stop streaming, the handle goes to
// stdout (where a script picks it up).
sdk::Result<CallOutcome> leave_running(RunnerChannel& channel, const std::string& handle,
                                       const CallTerminal& terminal) {
  channel.send(wire::Detach{});
  flush_to_runner(channel);
  if (auto written = write_whole(terminal.stdout_fd, handle + "\n"); !written)
    return sdk::make_error("writing the job's handle: " + written.error().message);
  return CallOutcome{.end = CallEnd::detached,
                     .exit_code = 0,
                     .signal = {},
                     .last_sequence = 0,
                     .detail = {},
                     .lost_reason = {}};
}

}  // namespace

sdk::Result<CallOutcome> run_call(const CallRequest& request, const RunnerLink& link,
                                  const CallTerminal& terminal) {
  if (auto checked = check_call_request(request); !checked) return checked.error();
  auto channel = RunnerChannel::open(link.read_fd, link.write_fd);
  if (!channel) return channel.error();
  if (auto greeted = exchange_hello(*channel, link.program, terminal.interrupts_fd); !greeted)
    return greeted.error();
  auto admitted = admit_job(*channel, request, terminal);
  if (!admitted) return admitted.error();
  const auto handle = job_handle(link.peer, request.job);
  if (request.detach) return leave_running(*channel, handle, terminal);
  write_note(terminal.stderr_fd, admitted->existing
                                     ? fmt::format("job {} (admitted before; following it)", handle)
                                     : fmt::format("job {}", handle));
  const std::uint64_t position = admitted->position.value_or(0);
  if (position != 0) write_note(terminal.stderr_fd, fmt::format("queued: position {}", position));
  // A job admitted before (a retried admission) streams from its start, as a new one does.
  return follow_job(*channel, terminal,
                    FollowSettings{.job = request.job,
                                   .handle = handle,
                                   .after = 0,
                                   .forward_stdin = true,
                                   .shown_position = position});
}

sdk::Result<CallOutcome> attach_job(const AttachRequest& request, const RunnerLink& link,
                                    const CallTerminal& terminal) {
  if (!is_job_id(request.job))
    return sdk::refusal(fmt::format("\"{}\" is not a job id", request.job));
  auto channel = RunnerChannel::open(link.read_fd, link.write_fd);
  if (!channel) return channel.error();
  if (auto greeted = exchange_hello(*channel, link.program, terminal.interrupts_fd); !greeted)
    return greeted.error();
  channel->send(wire::Attach{.job = request.job, .from = request.from});
  return follow_job(*channel, terminal,
                    FollowSettings{.job = request.job,
                                   .handle = job_handle(link.peer, request.job),
                                   .after = request.from,
                                   .forward_stdin = request.forward_stdin,
                                   .shown_position = 0});
}

}  // namespace errand::remote
