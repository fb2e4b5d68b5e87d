#include "core/remote/call/run_call.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/unit/remote/call/scripted_runner.hpp"
#include "tests/unit/remote/call/terminal_pipes.hpp"

#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <string>
#include <vector>

using Catch::Matchers::ContainsSubstring;
using errand::remote::CallEnd;
using errand::remote::CallRequest;
using errand::remote::run_call;
using errand::test::fresh_job_id;
using errand::test::greet_and_take_admit;
using errand::test::ok;
using errand::test::RunnerEnd;
using errand::test::ScriptedRunner;
using errand::test::TerminalPipes;
namespace wire = errand::remote::wire;

namespace {

CallRequest terminal_test_request(const std::string& job) {
  return CallRequest{.job = job,
                     .argv = {"cat"},
                     .env = {},
                     .workdir = {},
                     .snapshot = std::nullopt,
                     .detach = false};
}

void admit_running(RunnerEnd& end, const std::string& job) {
  end.send(wire::Admitted{
      .job = job, .state = wire::JobState::running, .existing = false, .position = std::nullopt});
}

// What the user's Ctrl-C does through the CLI's SIGINT handler.
void press_interrupt(int interrupt_writer) {
  const char byte = 1;
  (void)::write(interrupt_writer, &byte, 1);
}

}  // namespace

TEST_CASE("the first interrupt sends the job INT, the second KILL", "[remote][call]") {
  const auto job = fresh_job_id();
  TerminalPipes pipes;
  std::vector<wire::Signal> signals;
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end)) return;
    admit_running(end, job);
    end.send(wire::Output{
        .sequence = 1, .stream = wire::OutputStream::standard_output, .data = "working\n"});
    press_interrupt(pipes.interrupt_writer());
    auto first = end.receive_a<wire::Signal>("the first interrupt's signal");
    if (!first) return;
    signals.push_back(*first);
    // The job ignores INT; the user presses Ctrl-C again.
    press_interrupt(pipes.interrupt_writer());
    auto second = end.receive_a<wire::Signal>("the second interrupt's signal");
    if (!second) return;
    signals.push_back(*second);
    end.send(wire::End{
        .job = job, .exit_code = std::nullopt, .signal = 9, .last = 1, .detail = "killed"});
  });

  const auto outcome = run_call(terminal_test_request(job), runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE(ok(outcome));
  CHECK(runner.problems().empty());
  REQUIRE(signals.size() == 2);
  CHECK(signals[0] == wire::Signal{.job = job, .signal = wire::JobSignal::interrupt});
  CHECK(signals[1] == wire::Signal{.job = job, .signal = wire::JobSignal::kill});
  CHECK(outcome->exit_code == 128 + 9);
  CHECK(pipes.take_stdout() == "working\n");
  const auto notes = pipes.take_stderr();
  CHECK_THAT(notes, ContainsSubstring("interrupting the job; interrupt again to kill it\n"
                                      "killing the job\n"));
}

TEST_CASE("a stdin that is not a terminal goes to the job, then an empty input at its end",
          "[remote][call]") {
  const auto job = fresh_job_id();
  TerminalPipes pipes;
  pipes.give_stdin_and_close("line one\nline two\n");
  std::vector<std::string> inputs;
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end)) return;
    admit_running(end, job);
    std::string echoed;
    for (;;) {
      auto input = end.receive_a<wire::Input>("the caller's stdin");
      if (!input) return;
      inputs.push_back(input->data);
      if (input->data.empty()) break;
      echoed += input->data;
    }
    end.send(
        wire::Output{.sequence = 1, .stream = wire::OutputStream::standard_output, .data = echoed});
    end.send(
        wire::End{.job = job, .exit_code = 0, .signal = std::nullopt, .last = 1, .detail = {}});
  });

  const auto outcome = run_call(terminal_test_request(job), runner.link(),
                                pipes.terminal(/*stdin_is_terminal=*/false));
  runner.finish();

  REQUIRE(ok(outcome));
  CHECK(runner.problems().empty());
  CHECK(outcome->end == CallEnd::ended);
  CHECK(outcome->exit_code == 0);
  REQUIRE(inputs.size() >= 2);
  CHECK(inputs.back().empty());
  CHECK(pipes.take_stdout() == "line one\nline two\n");
}

TEST_CASE("Ctrl-D on a terminal detaches and says how to attach again", "[remote][call]") {
  const auto job = fresh_job_id();
  TerminalPipes pipes;
  pipes.give_stdin_and_close("typed, not for the job\n");
  bool detach_arrived = false;
  std::optional<wire::Message> after_detach;
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end)) return;
    admit_running(end, job);
    detach_arrived = end.receive_a<wire::Detach>("the caller's detach").has_value();
    after_detach = end.receive();  // nothing: the caller is gone, its typed line unsent
  });

  const auto outcome = run_call(terminal_test_request(job), runner.link(),
                                pipes.terminal(/*stdin_is_terminal=*/true));
  runner.finish();

  REQUIRE(ok(outcome));
  CHECK(runner.problems().empty());
  CHECK(detach_arrived);
  CHECK_FALSE(after_detach.has_value());
  CHECK(outcome->end == CallEnd::detached);
  CHECK(outcome->exit_code == 0);
  const auto notes = pipes.take_stderr();
  CHECK_THAT(notes,
             ContainsSubstring("detached; errand attach box/" + job + " follows it again\n"));
}

TEST_CASE("an interrupt before the job is admitted cancels the call", "[remote][call]") {
  const auto job = fresh_job_id();
  TerminalPipes pipes;
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end)) return;
    // The runner is slow to decide; the user gives up.
    press_interrupt(pipes.interrupt_writer());
    while (end.receive()) {
    }
  });

  const auto outcome = run_call(terminal_test_request(job), runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE_FALSE(outcome.has_value());
  CHECK(outcome.error().kind == errand::sdk::Error::Kind::cancelled);
  CHECK(outcome.error().message == "interrupted before the runner admitted the job");
}
