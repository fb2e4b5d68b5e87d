#include "core/cli/remote_follow.hpp"

#include <chrono>
#include <iostream>
#include <thread>

#include "core/remote/call/run_call.hpp"

namespace errand::cli {

namespace {

constexpr int kReattachAttempts = 3;
constexpr auto kReattachPause = std::chrono::seconds(1);
constexpr int kExitInterrupted = 130;  // as a shell reports a command ended by SIGINT

int exit_code_for(const sdk::Error& error) {
  switch (error.kind) {
    case sdk::Error::Kind::refused:
    case sdk::Error::Kind::not_found:
    case sdk::Error::Kind::unavailable: return 2;
    case sdk::Error::Kind::cancelled: return kExitInterrupted;
    default: return 1;
  }
}

}  // namespace

int report_call_error(const sdk::Error& error, RunnerConnection& connection) {
  const std::string peer = connection.link().peer;
  const auto ssh_status = connection.close();
  if (auto unreachable = unreachable_sentence(peer, ssh_status); unreachable) {
    // ssh has said why on stderr already; the call's own error (the stream ended before hello)
    // adds nothing to that.
    std::cerr << "errand: " << *unreachable << "\n";
    return 2;
  }
  std::cerr << "errand: " << error.message << "\n";
  return exit_code_for(error);
}

int follow_to_the_end(sdk::Result<remote::CallOutcome> outcome, RunnerConnection& connection,
                      const FollowContext& context) {
  std::optional<RunnerConnection> reconnected;
  RunnerConnection* current = &connection;
  for (int attempt = 0;; ++attempt) {
    if (!outcome) return report_call_error(outcome.error(), *current);
    if (outcome->end != remote::CallEnd::connection_lost) {
      current->close();
      return outcome->exit_code;
    }
    std::cerr << "errand: " << remote::connection_lost_sentence(*outcome) << "\n";
    current->close();
    const auto handle = remote::job_handle(current->link().peer, context.job);
    if (attempt >= kReattachAttempts) {
      std::cerr << "errand: gave up after " << kReattachAttempts
                << " attempts; the job goes on: errand attach " << handle << "\n";
      return 1;
    }
    std::this_thread::sleep_for(kReattachPause);
    const auto from = outcome->last_sequence;
    current = &connection;  // closed already; it only names the peer until a new one opens
    reconnected.reset();
    auto opened = RunnerConnection::open(context.where);
    if (!opened) {
      std::cerr << "errand: " << opened.error().message << "\n";
      // Counted as an attempt, and the outcome kept: the next one resumes from the same place.
      continue;
    }
    reconnected.emplace(std::move(*opened));
    current = &*reconnected;
    outcome = remote::attach_job(
        remote::AttachRequest{
            .job = context.job, .from = from, .forward_stdin = context.forward_stdin},
        current->link(), context.terminal);
  }
}

}  // namespace errand::cli
