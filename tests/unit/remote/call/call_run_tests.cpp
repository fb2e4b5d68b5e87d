#include "core/remote/call/run_call.hpp"
#include "core/remote/wire/frame.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/unit/remote/call/scripted_runner.hpp"
#include "tests/unit/remote/call/terminal_pipes.hpp"

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

CallRequest request_without_snapshot(const std::string& job) {
  return CallRequest{.job = job,
                     .argv = {"make", "check"},
                     .env = {{"LANG", "C.UTF-8"}},
                     .workdir = {},
                     .snapshot = std::nullopt,
                     .detach = false};
}

wire::Admitted admitted_running(const std::string& job) {
  return wire::Admitted{
      .job = job, .state = wire::JobState::running, .existing = false, .position = std::nullopt};
}

wire::Output stdout_piece(std::uint64_t sequence, std::string data) {
  return wire::Output{
      .sequence = sequence, .stream = wire::OutputStream::standard_output, .data = std::move(data)};
}

wire::Output stderr_piece(std::uint64_t sequence, std::string data) {
  return wire::Output{
      .sequence = sequence, .stream = wire::OutputStream::standard_error, .data = std::move(data)};
}

wire::End exited(const std::string& job, int code, std::uint64_t last) {
  return wire::End{
      .job = job, .exit_code = code, .signal = std::nullopt, .last = last, .detail = {}};
}

}  // namespace

TEST_CASE("a job without a snapshot streams both outputs in order and exits as the job did",
          "[remote][call]") {
  const auto job = fresh_job_id();
  std::optional<wire::Admit> admit;
  ScriptedRunner runner([&](RunnerEnd& end) {
    admit = greet_and_take_admit(end);
    if (!admit) return;
    end.send(admitted_running(job));
    end.send(stdout_piece(1, "compiling\n"));
    end.send(stderr_piece(2, "warning: unused\n"));
    end.send(stdout_piece(3, "3 tests failed\n"));
    end.send(stderr_piece(4, "make: *** [check] Error 3\n"));
    end.send(exited(job, 3, 4));
  });
  TerminalPipes pipes;

  const auto outcome = run_call(request_without_snapshot(job), runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE(ok(outcome));
  CHECK(runner.problems().empty());
  CHECK(outcome->end == CallEnd::ended);
  CHECK(outcome->exit_code == 3);
  CHECK(outcome->last_sequence == 4);
  REQUIRE(admit);
  CHECK(admit->job == job);
  CHECK(admit->argv == std::vector<std::string>{"make", "check"});
  CHECK_FALSE(admit->snapshot);
  CHECK(pipes.take_stdout() == "compiling\n3 tests failed\n");
  const auto notes_and_errors = pipes.take_stderr();
  CHECK(notes_and_errors ==
        "no snapshot; the job starts in an empty workspace\n"
        "job box/" +
            job +
            "\n"
            "warning: unused\n"
            "make: *** [check] Error 3\n");
}

TEST_CASE("a job a signal ended exits with 128 plus the signal's number", "[remote][call]") {
  const auto job = fresh_job_id();
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end)) return;
    end.send(wire::Admitted{
        .job = job, .state = wire::JobState::queued, .existing = false, .position = 2});
    // The runner repeats the admission's place in a queued frame before the place moves.
    end.send(wire::Queued{.position = 2});
    end.send(wire::Queued{.position = 1});
    end.send(stdout_piece(1, "started\n"));
    end.send(wire::End{.job = job,
                       .exit_code = std::nullopt,
                       .signal = 15,
                       .last = 1,
                       .detail = "terminated by the runner"});
  });
  TerminalPipes pipes;

  const auto outcome = run_call(request_without_snapshot(job), runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE(ok(outcome));
  CHECK(outcome->exit_code == 128 + 15);
  CHECK(outcome->signal == 15);
  CHECK(outcome->detail == "terminated by the runner");
  const auto notes = pipes.take_stderr();
  CHECK_THAT(notes, ContainsSubstring("queued: position 2\nqueued: position 1\n"));
  CHECK(notes.find("queued: position 2") == notes.rfind("queued: position 2"));
}

TEST_CASE("a working directory below the root with --no-snapshot is refused before connecting",
          "[remote][call]") {
  auto request = request_without_snapshot(fresh_job_id());
  request.workdir = "src/lib";
  TerminalPipes pipes;
  const errand::remote::RunnerLink nowhere{
      .read_fd = -1, .write_fd = -1, .peer = "box", .program = "errand"};

  const auto outcome = run_call(request, nowhere, pipes.terminal());

  REQUIRE_FALSE(outcome.has_value());
  CHECK_THAT(outcome.error().message,
             ContainsSubstring("with --no-snapshot the job starts in an empty workspace, which "
                               "has no directory \"src/lib\""));
}

TEST_CASE("a runner speaking another protocol version is a clear error", "[remote][call]") {
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!end.receive_a<wire::Hello>("the caller's hello")) return;
    std::string hello;
    wire::append_frame(hello, wire::FrameType::hello,
                       R"({"protocol": 2, "program": "errand 9.0.0"})");
    end.send_bytes(hello);
  });
  TerminalPipes pipes;

  const auto outcome =
      run_call(request_without_snapshot(fresh_job_id()), runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE_FALSE(outcome.has_value());
  CHECK_THAT(outcome.error().message, ContainsSubstring("the peer speaks protocol 2"));
  CHECK_THAT(outcome.error().message, ContainsSubstring("this side speaks 1"));
  CHECK_THAT(outcome.error().message, ContainsSubstring("speak the same protocol"));
}

TEST_CASE("the runner's refusal is an error with its code and message", "[remote][call]") {
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end)) return;
    end.send(wire::Refused{.code = wire::RefusalCode::queue_full,
                           .message = "16 jobs wait already; try again later"});
  });
  TerminalPipes pipes;

  const auto outcome =
      run_call(request_without_snapshot(fresh_job_id()), runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE_FALSE(outcome.has_value());
  CHECK(outcome.error().kind == errand::sdk::Error::Kind::limit);
  CHECK(outcome.error().message ==
        "the runner refused the job (queue-full): 16 jobs wait already; try again later");
}

TEST_CASE("an output number skipped is an integrity error", "[remote][call]") {
  const auto job = fresh_job_id();
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end)) return;
    end.send(admitted_running(job));
    end.send(stdout_piece(1, "one\n"));
    end.send(stdout_piece(3, "three\n"));
    end.send(exited(job, 0, 3));
  });
  TerminalPipes pipes;

  const auto outcome = run_call(request_without_snapshot(job), runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE_FALSE(outcome.has_value());
  CHECK(outcome.error().message ==
        "output integrity: output 3 arrived after output 1, so the output between was lost");
  CHECK(pipes.take_stdout() == "one\n");
}

TEST_CASE("an output number repeated is an integrity error", "[remote][call]") {
  const auto job = fresh_job_id();
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end)) return;
    end.send(admitted_running(job));
    end.send(stdout_piece(1, "one\n"));
    end.send(stdout_piece(2, "two\n"));
    end.send(stdout_piece(2, "two\n"));
  });
  TerminalPipes pipes;

  const auto outcome = run_call(request_without_snapshot(job), runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE_FALSE(outcome.has_value());
  CHECK_THAT(outcome.error().message,
             ContainsSubstring("output integrity: output 2 arrived again after output 2"));
  CHECK(pipes.take_stdout() == "one\ntwo\n");
}

TEST_CASE("an end claiming output that never arrived is an integrity error", "[remote][call]") {
  const auto job = fresh_job_id();
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end)) return;
    end.send(admitted_running(job));
    end.send(stdout_piece(1, "one\n"));
    end.send(exited(job, 0, 2));
  });
  TerminalPipes pipes;

  const auto outcome = run_call(request_without_snapshot(job), runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE_FALSE(outcome.has_value());
  CHECK(outcome.error().message ==
        "output integrity: the job's last output is number 2, but the last that arrived is 1");
}

TEST_CASE("with --detach the handle goes to stdout once the job is admitted", "[remote][call]") {
  const auto job = fresh_job_id();
  bool detach_arrived = false;
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end)) return;
    end.send(admitted_running(job));
    detach_arrived = end.receive_a<wire::Detach>("the caller's detach").has_value();
  });
  TerminalPipes pipes;
  auto request = request_without_snapshot(job);
  request.detach = true;

  const auto outcome = run_call(request, runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE(ok(outcome));
  CHECK(runner.problems().empty());
  CHECK(outcome->end == CallEnd::detached);
  CHECK(outcome->exit_code == 0);
  CHECK(detach_arrived);
  CHECK(pipes.take_stdout() == "box/" + job + "\n");
}

TEST_CASE("a message from the runner that does not decode is an error naming it",
          "[remote][call]") {
  const auto job = fresh_job_id();
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end)) return;
    end.send(admitted_running(job));
    std::string queued;
    wire::append_frame(queued, wire::FrameType::queued, R"({"position": 0})");
    end.send_bytes(queued);
  });
  TerminalPipes pipes;

  const auto outcome = run_call(request_without_snapshot(job), runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE_FALSE(outcome.has_value());
  CHECK_THAT(outcome.error().message,
             ContainsSubstring("the runner sent a message this errand cannot read: queued"));
}

TEST_CASE("a message the protocol does not allow before admission is an error naming it",
          "[remote][call]") {
  const auto job = fresh_job_id();
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end)) return;
    end.send(stdout_piece(1, "too early\n"));
  });
  TerminalPipes pipes;

  const auto outcome = run_call(request_without_snapshot(job), runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE_FALSE(outcome.has_value());
  CHECK(outcome.error().message ==
        "the runner broke the protocol: it sent \"output\" before admitting the job");
}
