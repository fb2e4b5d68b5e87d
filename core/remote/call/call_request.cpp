#include "core/remote/call/call_request.hpp"

#include <fmt/format.h>

#include "core/remote/jobs/job_id.hpp"

namespace errand::remote {

sdk::Result<void> check_call_request(const CallRequest& request) {
  if (request.argv.empty() || request.argv.front().empty())
    return sdk::refusal("there is no command to run: give it after `--`");
  if (!is_job_id(request.job))
    return sdk::refusal(fmt::format("\"{}\" is not a job id (make_job_id makes one)", request.job));
  if (!request.snapshot && !request.workdir.empty())
    return sdk::refusal(fmt::format(
        "with --no-snapshot the job starts in an empty workspace, which has no directory \"{}\" "
        "to start in; run it from the tree's root, or without --no-snapshot",
        request.workdir));
  return {};
}

wire::Admit admit_message(const CallRequest& request) {
  return wire::Admit{.job = request.job,
                     .argv = request.argv,
                     .env = request.env,
                     .workdir = request.workdir,
                     .snapshot = request.snapshot.has_value()};
}

}  // namespace errand::remote
