// `errand [--on PEER] [--no-snapshot] [--workdir DIR] [--include-all] [--detach] -- CMD...`:
// the working tree (or nothing) and CMD to a runner, its output back, its exit code ours.

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "core/cli/commands.hpp"
#include "core/cli/remote_arguments.hpp"
#include "core/cli/remote_connection.hpp"
#include "core/cli/remote_follow.hpp"
#include "core/cli/remote_interrupts.hpp"
#include "core/remote/call/run_call.hpp"
#include "core/remote/jobs/job_id.hpp"

namespace errand::cli {

namespace {

constexpr int kExitUsage = 2;

int refuse_run(const std::string& sentence) {
  std::cerr << "errand: " << sentence << "\n";
  return kExitUsage;
}

// The current directory as select_files wants it, the caller's home to check it against.
sdk::Result<remote::Selection> select_current_directory(bool include_all) {
  std::error_code ec;
  const auto cwd = std::filesystem::current_path(ec);
  if (ec) return sdk::make_error("the current directory: " + ec.message());
  const char* home = std::getenv("HOME");
  auto selection = remote::select_files(
      remote::SelectionOptions{.root = cwd, .include_all = include_all, .home = home ? home : ""});
  if (!selection) return selection.error();
  for (const auto& left : selection->left_out)
    std::cerr << "errand: not sent: " << left.path << " (" << left.reason << ")\n";
  return selection;
}

}  // namespace

int remote_run_command(const std::vector<std::string>& args) {
  auto parsed = parse_remote_run_arguments(args);
  if (!parsed) return refuse_run(parsed.error().message);
  // An unknown peer is refused before the tree is read.
  if (auto peer = parse_peer(parsed->where.peer); !peer) return refuse_run(peer.error().message);

  remote::CallRequest request;
  request.job = remote::make_job_id(
      std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now()));
  request.argv = parsed->command;
  request.workdir = parsed->workdir;
  request.detach = parsed->detach;
  if (!parsed->no_snapshot) {
    // run_call prints the summary of what is sent; only what is left out is said here.
    auto selection = select_current_directory(parsed->include_all);
    if (!selection) return refuse_run(selection.error().message);
    request.snapshot = std::move(*selection);
  }
  if (auto checked = remote::check_call_request(request); !checked)
    return refuse_run(checked.error().message);

  InterruptPipe interrupts;
  const remote::CallTerminal terminal = process_terminal(interrupts);
  auto connection = RunnerConnection::open(parsed->where);
  if (!connection) return refuse_run(connection.error().message);
  auto outcome = remote::run_call(request, connection->link(), terminal);
  return follow_to_the_end(
      std::move(outcome), *connection,
      FollowContext{
          .where = parsed->where, .job = request.job, .forward_stdin = true, .terminal = terminal});
}

}  // namespace errand::cli
