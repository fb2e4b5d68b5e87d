// `errand ps`, `errand kill` and `errand jobs show`: one request to a runner each, about the
// caller's own jobs there.

#include <boost/json/serialize.hpp>
#include <iostream>

#include "core/cli/commands.hpp"
#include "core/cli/remote_arguments.hpp"
#include "core/cli/remote_connection.hpp"
#include "core/cli/remote_follow.hpp"
#include "core/cli/remote_interrupts.hpp"
#include "core/cli/remote_job_listing.hpp"
#include "core/cli/remote_request.hpp"

namespace errand::cli {

namespace {

namespace json = boost::json;
namespace wire = remote::wire;

// The answer to one request, or the exit code the command ends with after saying why not.
struct AskedAnswer {
  std::optional<json::object> body;
  int exit_code = 0;
  std::string peer;
};

AskedAnswer ask(const PeerChoice& where, const wire::Request& request) {
  auto connection = RunnerConnection::open(where);
  if (!connection) {
    std::cerr << "errand: " << connection.error().message << "\n";
    return {.body = {}, .exit_code = 2, .peer = where.peer};
  }
  InterruptPipe interrupts;
  auto answer = ask_runner(connection->link(), request, interrupts.read_fd());
  if (!answer)
    return {.body = {},
            .exit_code = report_call_error(answer.error(), *connection),
            .peer = where.peer};
  const std::string peer = connection->link().peer;
  connection->close();
  return {.body = std::move(*answer), .exit_code = 0, .peer = peer};
}

int refuse_jobs(const std::string& sentence) {
  std::cerr << "errand: " << sentence << "\n";
  return 2;
}

// The job the handle names and the peer it is on, for kill and show.
sdk::Result<std::pair<PeerChoice, std::string>> named_job(const JobCommandArguments& parsed) {
  auto handle = resolve_job_handle(*parsed.handle, parsed.where);
  if (!handle) return handle.error();
  PeerChoice where = parsed.where;
  where.peer = handle->peer;
  return std::pair{where, handle->job};
}

}  // namespace

int remote_ps_command(const std::vector<std::string>& args) {
  auto parsed = parse_job_command_arguments(
      args, JobCommandShape{.name = "ps", .takes_handle = false, .takes_json = true});
  if (!parsed) return refuse_jobs(parsed.error().message);
  auto asked = ask(parsed->where, wire::Request{.op = wire::RequestOp::ps, .job = {}});
  if (!asked.body) return asked.exit_code;
  const auto* jobs = asked.body->if_contains("jobs");
  if (!jobs || !jobs->is_array()) return refuse_jobs("the runner's answer lists no jobs");
  if (parsed->json)
    std::cout << json::serialize(*jobs) << "\n";
  else
    std::cout << job_table(jobs->as_array());
  return 0;
}

int remote_kill_command(const std::vector<std::string>& args) {
  auto parsed = parse_job_command_arguments(
      args, JobCommandShape{.name = "kill", .takes_handle = true, .takes_json = false});
  if (!parsed) return refuse_jobs(parsed.error().message);
  auto job = named_job(*parsed);
  if (!job) return refuse_jobs(job.error().message);
  auto asked = ask(job->first, wire::Request{.op = wire::RequestOp::kill, .job = job->second});
  if (!asked.body) return asked.exit_code;
  const auto handle = remote::job_handle(asked.peer, job->second);
  const auto* killed = asked.body->if_contains("killed");
  if (killed && killed->is_bool() && killed->as_bool()) {
    std::cout << "killed " << handle << "\n";
    return 0;
  }
  const auto* detail = asked.body->if_contains("detail");
  std::cerr << "errand: " << handle << " was not killed"
            << (detail && detail->is_string() ? ": " + std::string(detail->as_string()) : "")
            << "\n";
  return 1;
}

int remote_jobs_command(const std::vector<std::string>& args) {
  if (args.empty() || args.front() != "show")
    return refuse_jobs("jobs: the one subcommand is show: errand jobs show [--on PEER] HANDLE");
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  auto parsed = parse_job_command_arguments(
      rest, JobCommandShape{.name = "jobs show", .takes_handle = true, .takes_json = true});
  if (!parsed) return refuse_jobs(parsed.error().message);
  auto job = named_job(*parsed);
  if (!job) return refuse_jobs(job.error().message);
  auto asked = ask(job->first, wire::Request{.op = wire::RequestOp::show, .job = job->second});
  if (!asked.body) return asked.exit_code;
  const auto* receipt = asked.body->if_contains("job");
  if (!receipt || !receipt->is_object()) return refuse_jobs("the runner's answer has no receipt");
  if (parsed->json)
    std::cout << json::serialize(*receipt) << "\n";
  else
    std::cout << job_receipt_lines(receipt->as_object());
  return 0;
}

}  // namespace errand::cli
