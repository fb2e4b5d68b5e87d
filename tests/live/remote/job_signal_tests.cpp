// Jobs ended by a signal: their own, the runner's interrupt() and terminate() passed on by
// bailey's launcher and PID 1, and kill(), which stops the whole sandbox.

#include <boost/asio/post.hpp>
#include <catch2/catch_test_macros.hpp>
#include <chrono>

#include "core/remote/runner/job_paths.hpp"
#include "tests/live/remote/job_harness.hpp"
#include "tests/support/result_checks.hpp"

using errand::remote::JobExecution;
using errand::remote::JobState;
using errand::test::ok;
using remote_live::JobHarness;

namespace {

// A job that says "ready" and then sleeps far longer than a test may take.
constexpr const char* kSleeper = "echo ready; exec sleep 60";

// Acts on the job once its first output has been logged, so the command is surely running.
std::function<void(JobExecution&)> once_ready(std::function<void(JobExecution&)> act,
                                              std::string& act_error) {
  return [act = std::move(act), &act_error](JobExecution& job) {
    job.set_listener({.started = {},
                      .launched = {},
                      .output =
                          [&job, act, &act_error, done = false](std::uint64_t) mutable {
                            if (done) return;
                            done = true;
                            if (!job.running()) act_error = "the job was not running";
                            act(job);
                          },
                      .ended = {}});
  };
}

}  // namespace

TEST_CASE("a job killed by its own signal ends with that signal recorded", "[live][remote]") {
  JobHarness h;
  auto request = h.admit({"sh", "-c", "kill -TERM $$"});
  const auto id = request.id;
  const auto outcome = h.run(std::move(request));
  INFO(outcome.detail);
  CHECK(outcome.state == JobState::ended);
  CHECK(outcome.signal == SIGTERM);
  CHECK_FALSE(outcome.exit_code);
  auto row = h.jobs().get(id);
  REQUIRE(ok(row));
  CHECK(row->signal == SIGTERM);
  CHECK_FALSE(row->exit_code);
  CHECK(row->workspace_removed == true);
}

TEST_CASE("interrupt() delivers SIGINT to the job's command", "[live][remote]") {
  JobHarness h;
  auto request = h.admit({"sh", "-c", kSleeper});
  const auto id = request.id;
  std::string act_error;
  const auto started = std::chrono::steady_clock::now();
  const auto outcome = h.run(std::move(request), once_ready(
                                                     [&](JobExecution& job) {
                                                       if (auto sent = job.interrupt(); !sent)
                                                         act_error = sent.error().message;
                                                     },
                                                     act_error));
  const auto took = std::chrono::steady_clock::now() - started;
  INFO(outcome.detail << " / " << act_error);
  CHECK(act_error.empty());
  CHECK(outcome.state == JobState::ended);
  // sleep has no handler for SIGINT, so the kernel ends it with the signal itself.
  CHECK(outcome.signal == SIGINT);
  CHECK(took < std::chrono::seconds(30));
  auto row = h.jobs().get(id);
  REQUIRE(ok(row));
  CHECK(row->signal == SIGINT);
}

TEST_CASE("terminate() delivers SIGTERM, and a job may handle it", "[live][remote]") {
  JobHarness h;
  // The shell traps TERM, so the end proves the signal reached the command, not the sandbox.
  auto request =
      h.admit({"sh", "-c", "trap 'echo caught TERM; exit 42' TERM; echo ready; sleep 60 & wait"});
  const auto id = request.id;
  std::string act_error;
  const auto outcome = h.run(std::move(request), once_ready(
                                                     [&](JobExecution& job) {
                                                       if (auto sent = job.terminate(); !sent)
                                                         act_error = sent.error().message;
                                                     },
                                                     act_error));
  INFO(outcome.detail << " / " << act_error);
  CHECK(act_error.empty());
  CHECK(outcome.exit_code == 42);
  const auto logged = remote_live::read_job_log(errand::remote::job_paths(h.state_dir(), id).log);
  CHECK(logged.out == "ready\ncaught TERM\n");
}

TEST_CASE("kill() stops the sandbox and the job ends with the stop recorded", "[live][remote]") {
  JobHarness h;
  // TERM ignored: only the SIGKILL after the grace can end it.
  auto request = h.admit({"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 1; done"});
  const auto id = request.id;
  std::string act_error;
  const auto outcome = h.run(
      std::move(request),
      once_ready([](JobExecution& job) { job.kill(std::chrono::milliseconds(500)); }, act_error));
  INFO(outcome.detail << " / " << act_error);
  CHECK(outcome.state == JobState::ended);
  CHECK(outcome.signal == SIGKILL);
  CHECK(outcome.sandbox_removed);
  auto row = h.jobs().get(id);
  REQUIRE(ok(row));
  CHECK(row->signal == SIGKILL);
  CHECK_FALSE(row->detail.empty());
  CHECK(row->workspace_removed == true);
}

TEST_CASE("signals are refused to a job that is not running", "[live][remote]") {
  JobHarness h;
  auto job = h.make(h.admit({"true"}));
  CHECK_FALSE(job->interrupt().has_value());
  CHECK_FALSE(job->terminate().has_value());
}
