#include "core/remote/call/job_follower.hpp"

#include <poll.h>

#include <fmt/format.h>

#include <optional>
#include <variant>
#include <vector>

#include "core/remote/call/output_sequence.hpp"
#include "core/remote/call/runner_errors.hpp"
#include "core/remote/call/runner_waits.hpp"
#include "core/remote/call/terminal_input.hpp"
#include "core/remote/call/terminal_writes.hpp"

namespace errand::remote {

namespace {

constexpr std::string_view kWhileFollowing = "while the job was being followed";

// Stdin is read no further while this much waits to go to the runner: a job that does not
// read its input holds the user's input back instead of the caller's memory.
constexpr std::size_t kInputBacklogBytes = 4 * kInputChunkBytes;

class JobFollower {
 public:
  JobFollower(RunnerChannel& channel, const CallTerminal& terminal, const FollowSettings& settings)
      : channel_(channel),
        terminal_(terminal),
        settings_(settings),
        sequence_(settings.after),
        shown_position_(settings.shown_position),
        watching_stdin_(terminal.stdin_fd >= 0 &&
                        (terminal.stdin_is_terminal || settings.forward_stdin)),
        watching_interrupts_(terminal.interrupts_fd >= 0) {}

  sdk::Result<CallOutcome> run() {
    for (;;) {
      for (;;) {
        auto message = channel_.take();
        if (!message) return message.error();
        if (!*message) break;
        if (auto handled = handle(**message); !handled) return handled.error();
        if (outcome_) return *outcome_;
      }
      if (channel_.lost())
        return CallOutcome{.end = CallEnd::connection_lost,
                           .exit_code = 0,
                           .signal = {},
                           .last_sequence = sequence_.last(),
                           .detail = {},
                           .lost_reason = channel_.lost_reason()};
      if (auto waited = wait_for_anything(); !waited) return waited.error();
      if (outcome_) return *outcome_;
    }
  }

 private:
  sdk::Result<void> handle(const wire::Message& message) {
    if (const auto* output = std::get_if<wire::Output>(&message)) return show(*output);
    if (const auto* queued = std::get_if<wire::Queued>(&message)) {
      if (queued->position != shown_position_)
        write_note(terminal_.stderr_fd, fmt::format("queued: position {}", queued->position));
      shown_position_ = queued->position;
      return {};
    }
    if (const auto* end = std::get_if<wire::End>(&message)) return finish(*end);
    if (const auto* refused = std::get_if<wire::Refused>(&message))
      return refusal_error(fmt::format("a request about job {}", settings_.handle), *refused);
    return unexpected_message(message, kWhileFollowing);
  }

  sdk::Result<void> show(const wire::Output& output) {
    if (auto next = sequence_.accept(output.sequence); !next) return next;
    const bool to_stdout = output.stream == wire::OutputStream::standard_output;
    if (auto written =
            write_whole(to_stdout ? terminal_.stdout_fd : terminal_.stderr_fd, output.data);
        !written)
      return sdk::make_error(fmt::format("writing the job's {}: {}",
                                         to_stdout ? "standard output" : "standard error",
                                         written.error().message));
    return {};
  }

  sdk::Result<void> finish(const wire::End& end) {
    if (end.job != settings_.job)
      return protocol_breach(fmt::format("it sent the end of job {} while job {} was followed",
                                         printable_text(end.job), settings_.job));
    if (auto complete = sequence_.check_end(end.last); !complete) return complete;
    outcome_ = CallOutcome{.end = CallEnd::ended,
                           .exit_code = end.signal ? 128 + *end.signal : end.exit_code.value_or(0),
                           .signal = end.signal,
                           .last_sequence = end.last,
                           .detail = end.detail,
                           .lost_reason = {}};
    return {};
  }

  // Polls the runner and whichever of the user's descriptors are watched now.
  sdk::Result<void> wait_for_anything() {
    std::vector<pollfd> others;
    std::optional<std::size_t> interrupts_at;
    std::optional<std::size_t> stdin_at;
    if (watching_interrupts_) {
      interrupts_at = others.size();
      others.push_back({.fd = terminal_.interrupts_fd, .events = POLLIN, .revents = 0});
    }
    const bool input_held_back =
        !terminal_.stdin_is_terminal && channel_.unsent_bytes() > kInputBacklogBytes;
    if (watching_stdin_ && !input_held_back) {
      stdin_at = others.size();
      others.push_back({.fd = terminal_.stdin_fd, .events = POLLIN, .revents = 0});
    }
    WakeOn wake_on{.message = true, .unsent_at_most = {}};
    if (watching_stdin_ && input_held_back) wake_on.unsent_at_most = kInputBacklogBytes;
    if (auto waited = channel_.wait(others, wake_on); !waited) return waited;
    // The interrupts first: a Ctrl-C and a Ctrl-D together should still signal the job.
    if (interrupts_at && others[*interrupts_at].revents != 0) take_interrupts();
    if (stdin_at && others[*stdin_at].revents != 0) take_input();
    return {};
  }

  void take_interrupts() {
    const auto count = read_interrupts(terminal_.interrupts_fd);
    if (!count) {
      watching_interrupts_ = false;
      return;
    }
    for (std::size_t i = 0; i < *count; ++i) {
      ++interrupts_;
      const bool first = interrupts_ == 1;
      channel_.send(
          wire::Signal{.job = settings_.job,
                       .signal = first ? wire::JobSignal::interrupt : wire::JobSignal::kill});
      write_note(terminal_.stderr_fd,
                 first ? "interrupting the job; interrupt again to kill it" : "killing the job");
    }
  }

  void take_input() {
    auto input = read_input(terminal_.stdin_fd);
    if (terminal_.stdin_is_terminal) {
      // Typed lines are the user's, not the job's; only Ctrl-D (an empty read) means anything.
      if (input.kind == InputRead::Kind::end) detach();
      if (input.kind == InputRead::Kind::failed) watching_stdin_ = false;
      return;
    }
    switch (input.kind) {
      case InputRead::Kind::nothing: return;
      case InputRead::Kind::data: channel_.send(wire::Input{.data = std::move(input.data)}); return;
      case InputRead::Kind::failed:
        write_note(
            terminal_.stderr_fd,
            fmt::format("reading stdin failed ({}); the job's stdin is closed", input.reason));
        break;
      case InputRead::Kind::end: break;
    }
    // The end of a piped stdin is the end of the job's, not a detach.
    channel_.send(wire::Input{.data = {}});
    watching_stdin_ = false;
  }

  void detach() {
    channel_.send(wire::Detach{});
    flush_to_runner(channel_);
    write_note(terminal_.stderr_fd,
               fmt::format("detached; errand attach {} follows it again", settings_.handle));
    outcome_ = CallOutcome{.end = CallEnd::detached,
                           .exit_code = 0,
                           .signal = {},
                           .last_sequence = sequence_.last(),
                           .detail = {},
                           .lost_reason = {}};
  }

  RunnerChannel& channel_;
  const CallTerminal& terminal_;
  const FollowSettings& settings_;
  OutputSequence sequence_;
  std::uint64_t shown_position_;  // the queue place last said; 0: none yet
  bool watching_stdin_;
  bool watching_interrupts_;
  int interrupts_ = 0;
  std::optional<CallOutcome> outcome_;
};

}  // namespace

sdk::Result<CallOutcome> follow_job(RunnerChannel& channel, const CallTerminal& terminal,
                                    const FollowSettings& settings) {
  return JobFollower(channel, terminal, settings).run();
}

}  // namespace errand::remote
