#include "core/remote/call/run_call.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/unit/remote/call/scripted_runner.hpp"
#include "tests/unit/remote/call/terminal_pipes.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <string>
#include <vector>

using Catch::Matchers::ContainsSubstring;
using errand::remote::attach_job;
using errand::remote::AttachRequest;
using errand::remote::CallEnd;
using errand::remote::CallRequest;
using errand::remote::connection_lost_sentence;
using errand::remote::run_call;
using errand::test::fresh_job_id;
using errand::test::greet;
using errand::test::greet_and_take_admit;
using errand::test::ok;
using errand::test::RunnerEnd;
using errand::test::ScriptedRunner;
using errand::test::TerminalPipes;
namespace wire = errand::remote::wire;

namespace {

// A job's whole output as the runner logged it, numbered from 1.
std::vector<wire::Output> logged_output() {
  std::vector<wire::Output> log;
  const std::vector<std::pair<wire::OutputStream, std::string>> pieces = {
      {wire::OutputStream::standard_output, "step 1\n"},
      {wire::OutputStream::standard_error, "note 1\n"},
      {wire::OutputStream::standard_output, "step 2\n"},
      {wire::OutputStream::standard_output, "step 3\n"},
      {wire::OutputStream::standard_error, "note 2\n"},
      {wire::OutputStream::standard_output, "done\n"},
  };
  for (const auto& [stream, data] : pieces)
    log.push_back(wire::Output{.sequence = log.size() + 1, .stream = stream, .data = data});
  return log;
}

std::string logged_text(wire::OutputStream stream) {
  std::string text;
  for (const auto& output : logged_output())
    if (output.stream == stream) text += output.data;
  return text;
}

// The runner's answer to an attach: the log after `from`, then the end.
void serve_attach(RunnerEnd& end, const std::string& job, std::uint64_t& asked_from) {
  if (!greet(end)) return;
  auto attach = end.receive_a<wire::Attach>("the caller's attach");
  if (!attach) return;
  if (attach->job != job) end.note("attached to another job: " + attach->job);
  asked_from = attach->from;
  const auto log = logged_output();
  for (const auto& output : log)
    if (output.sequence > attach->from) end.send(output);
  end.send(wire::End{
      .job = job, .exit_code = 0, .signal = std::nullopt, .last = log.size(), .detail = {}});
}

}  // namespace

TEST_CASE(
    "after a lost connection, attaching from the last number shown completes the output "
    "without a gap or a repeat",
    "[remote][call]") {
  const auto job = fresh_job_id();
  TerminalPipes pipes;
  ScriptedRunner first([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end)) return;
    end.send(wire::Admitted{
        .job = job, .state = wire::JobState::running, .existing = false, .position = std::nullopt});
    const auto log = logged_output();
    for (std::size_t i = 0; i < 3; ++i) end.send(log[i]);
    // The connection drops partway through the fourth frame.
    end.send_bytes(wire::encode_message(log[3]).substr(0, 7));
    end.hang_up();
  });
  const CallRequest request{.job = job,
                            .argv = {"./build.sh"},
                            .env = {},
                            .workdir = {},
                            .snapshot = std::nullopt,
                            .detach = false};

  const auto lost = run_call(request, first.link(), pipes.terminal());
  first.finish();

  REQUIRE(ok(lost));
  CHECK(first.problems().empty());
  REQUIRE(lost->end == CallEnd::connection_lost);
  CHECK(lost->last_sequence == 3);
  CHECK_THAT(connection_lost_sentence(*lost),
             ContainsSubstring("connection lost after sequence 3 ("));

  std::uint64_t asked_from = 99;
  ScriptedRunner second([&](RunnerEnd& end) { serve_attach(end, job, asked_from); });
  const auto ended =
      attach_job(AttachRequest{.job = job, .from = lost->last_sequence, .forward_stdin = false},
                 second.link(), pipes.terminal());
  second.finish();

  REQUIRE(ok(ended));
  CHECK(second.problems().empty());
  CHECK(asked_from == 3);
  CHECK(ended->end == CallEnd::ended);
  CHECK(ended->last_sequence == 6);
  CHECK(pipes.take_stdout() == logged_text(wire::OutputStream::standard_output));
  const auto errors = pipes.take_stderr();
  CHECK_THAT(errors, ContainsSubstring("note 1\n"));
  CHECK_THAT(errors, ContainsSubstring("note 2\n"));
  CHECK(errors.find("note 1\n") == errors.rfind("note 1\n"));  // shown once
}

TEST_CASE("attaching from 0 replays the output from its start", "[remote][call]") {
  const auto job = fresh_job_id();
  TerminalPipes pipes;
  std::uint64_t asked_from = 99;
  ScriptedRunner runner([&](RunnerEnd& end) { serve_attach(end, job, asked_from); });

  const auto ended = attach_job(AttachRequest{.job = job, .from = 0, .forward_stdin = false},
                                runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE(ok(ended));
  CHECK(runner.problems().empty());
  CHECK(asked_from == 0);
  CHECK(ended->exit_code == 0);
  CHECK(pipes.take_stdout() == logged_text(wire::OutputStream::standard_output));
  CHECK(pipes.take_stderr() == logged_text(wire::OutputStream::standard_error));
}

TEST_CASE("attaching to a job the runner does not know is an error", "[remote][call]") {
  const auto job = fresh_job_id();
  TerminalPipes pipes;
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet(end) || !end.receive_a<wire::Attach>("the caller's attach")) return;
    end.send(wire::Refused{.code = wire::RefusalCode::unknown_job,
                           .message = "no job " + job + " here"});
  });

  const auto outcome = attach_job(AttachRequest{.job = job, .from = 0, .forward_stdin = false},
                                  runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE_FALSE(outcome.has_value());
  CHECK(outcome.error().kind == errand::sdk::Error::Kind::not_found);
  CHECK_THAT(outcome.error().message, ContainsSubstring("(unknown-job): no job " + job + " here"));
}
