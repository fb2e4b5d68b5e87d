// The sandbox-process lifecycle every backend runs on (common/sandbox_process), driven by a
// scripted backend: the end is described, cleaned up and only then told; a stop runs the
// backend's steps once, however many ask; steps that give up answer every caller; a limit that
// forced the stop leads the detail; a dropped handle ends a running sandbox and only a running
// one; the registry counts only what still runs.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <csignal>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "common/sandbox_process/active_sessions.hpp"
#include "common/sandbox_process/lifecycle.hpp"
#include "common/sandbox_process/process_handle.hpp"

namespace asio = boost::asio;
namespace sp = errand::sandbox_process;
namespace sdk = errand::sdk;
using namespace std::chrono_literals;

namespace {

enum class StopSteps { end_the_sandbox, give_up };

// A backend whose sandbox ends when the test says so, whose stop steps either end it or give
// up, and which writes down what the lifecycle asked of it, in order.
class ScriptedSandbox final : public sp::Lifecycle {
 public:
  ScriptedSandbox(asio::io_context& io, StopSteps steps)
      : Lifecycle(asio::make_strand(io), nullptr, "scripted sandbox", {4242, 10, 11, 12},
                  std::nullopt, 1000ms),
        steps_(steps),
        exit_timer_(strand(), asio::steady_timer::time_point::max()) {}

  // Ends the sandbox as its agent would, with what await_exit reports.
  void end_with(sdk::ExitInfo exit) {
    asio::post(strand(), [this, exit = std::move(exit)]() mutable {
      pending_ = std::move(exit);
      exit_timer_.cancel();
    });
  }

  void abandon() noexcept override { ++abandoned; }

  std::vector<std::string> asked;
  int stop_steps_run = 0;
  int abandoned = 0;
  std::optional<std::string> cleanup_failure;

 private:
  asio::awaitable<sdk::ExitInfo> await_exit() override {
    while (!pending_) {
      boost::system::error_code ignored;
      co_await exit_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    }
    asked.push_back("await_exit");
    co_return *pending_;
  }
  void describe_end(sdk::ExitInfo& exit) override {
    asked.push_back(has_result() ? "describe after the result" : "describe");
    Lifecycle::describe_end(exit);
  }
  asio::awaitable<sdk::Result<void>> clean_up() override {
    asked.push_back(ended() ? "clean_up after the end was told" : "clean_up");
    if (cleanup_failure) co_return sdk::make_error(*cleanup_failure);
    co_return sdk::Result<void>{};
  }
  asio::awaitable<std::optional<sdk::ExitInfo>> stop_steps(std::chrono::milliseconds) override {
    ++stop_steps_run;
    asked.push_back("stop_steps");
    if (steps_ == StopSteps::give_up) co_return gave_up_exit("gave up waiting");
    sdk::ExitInfo term;
    term.signal = SIGTERM;
    end_with(term);
    co_return std::nullopt;
  }

  StopSteps steps_;
  asio::steady_timer exit_timer_;
  std::optional<sdk::ExitInfo> pending_;
};

// Runs io until result is ready. io stops whenever it runs out of work (a sandbox that has
// ended leaves none), so it is restarted for the next wait.
template <class T>
T run_until(asio::io_context& io, std::future<T>& result) {
  while (result.wait_for(0ms) != std::future_status::ready) {
    if (io.stopped()) io.restart();
    io.run_one();
  }
  return result.get();
}

std::future<sdk::ExitInfo> stop_of(asio::io_context& io,
                                   const std::shared_ptr<ScriptedSandbox>& sandbox,
                                   sdk::LimitCause cause = sdk::LimitCause::none,
                                   std::string detail = {}) {
  return asio::co_spawn(io, sandbox->stop(1000ms, cause, std::move(detail)), asio::use_future);
}

// Ends sandbox with exit and runs io until the lifecycle has told its end.
sdk::ExitInfo end_and_tell(asio::io_context& io, const std::shared_ptr<ScriptedSandbox>& sandbox,
                           const sdk::ExitInfo& exit) {
  sandbox->end_with(exit);
  auto finished = asio::co_spawn(io, sandbox->finished(), asio::use_future);
  return run_until(io, finished);
}

}  // namespace

TEST_CASE("a sandbox's end is described, then cleaned up, and only then told") {
  asio::io_context io;
  auto sandbox = std::make_shared<ScriptedSandbox>(io, StopSteps::end_the_sandbox);
  sandbox->start();
  auto finished = asio::co_spawn(io, sandbox->finished(), asio::use_future);
  io.poll();
  CHECK_FALSE(sandbox->ended());
  sdk::ExitInfo exit;
  exit.exit_code = 3;
  exit.detail = "the agent exited with 3";
  sandbox->end_with(exit);
  const auto told = run_until(io, finished);
  CHECK(told.exit_code == 3);
  CHECK(told.detail == "the agent exited with 3");
  CHECK(told.limit == sdk::LimitCause::none);
  CHECK(told.cleanup_complete);
  CHECK(sandbox->ended());
  CHECK(sandbox->asked == std::vector<std::string>{"await_exit", "describe", "clean_up"});
  CHECK(sandbox->stop_steps_run == 0);
}

TEST_CASE("a cleanup that fails is told with the end, saying what remains") {
  asio::io_context io;
  auto sandbox = std::make_shared<ScriptedSandbox>(io, StopSteps::end_the_sandbox);
  sandbox->cleanup_failure = "the cgroup errand/s1 could not be removed: Device or resource busy";
  sandbox->start();
  sdk::ExitInfo exit;
  exit.exit_code = 0;
  const auto told = end_and_tell(io, sandbox, exit);
  CHECK_FALSE(told.cleanup_complete);
  CHECK(told.cleanup_detail == *sandbox->cleanup_failure);
}

TEST_CASE("two stops at once run the backend's stop steps once and both get the same end") {
  asio::io_context io;
  auto sandbox = std::make_shared<ScriptedSandbox>(io, StopSteps::end_the_sandbox);
  sandbox->start();
  auto first = stop_of(io, sandbox);
  auto second = stop_of(io, sandbox);
  const auto a = run_until(io, first);
  const auto b = run_until(io, second);
  CHECK(sandbox->stop_steps_run == 1);
  CHECK(a.signal == SIGTERM);
  CHECK(b.signal == SIGTERM);
  // The end the steps caused had nothing to say of itself: a stop on request says so.
  CHECK(a.detail == "stopped");
  CHECK(b.detail == "stopped");
  CHECK(a.cleanup_complete);
}

TEST_CASE("a stop forced by a limit leads the end's detail with why, and keeps the cause") {
  asio::io_context io;
  auto sandbox = std::make_shared<ScriptedSandbox>(io, StopSteps::end_the_sandbox);
  sandbox->start();
  auto stopped = stop_of(io, sandbox, sdk::LimitCause::disk, "the session passed its disk budget");
  const auto told = run_until(io, stopped);
  CHECK(told.limit == sdk::LimitCause::disk);
  CHECK(told.detail == "the session passed its disk budget; stopped");
  // A later stop with another cause changes nothing: the first stop's cause is the end's.
  auto later = stop_of(io, sandbox, sdk::LimitCause::memory, "later");
  CHECK(run_until(io, later).limit == sdk::LimitCause::disk);
  CHECK(sandbox->stop_steps_run == 1);
}

TEST_CASE("stop steps that give up answer every caller with their exit, the forced cause kept") {
  asio::io_context io;
  auto sandbox = std::make_shared<ScriptedSandbox>(io, StopSteps::give_up);
  sandbox->start();
  auto first = stop_of(io, sandbox, sdk::LimitCause::pids, "too many processes");
  auto second = stop_of(io, sandbox);
  const auto a = run_until(io, first);
  const auto b = run_until(io, second);
  CHECK(sandbox->stop_steps_run == 1);
  for (const auto& gave_up : {a, b}) {
    CHECK(gave_up.signal == SIGKILL);
    CHECK(gave_up.limit == sdk::LimitCause::pids);
    CHECK(gave_up.detail == "too many processes; gave up waiting");
    CHECK_FALSE(gave_up.cleanup_complete);
  }
  CHECK_FALSE(sandbox->ended());
  // The sandbox that did end later is still described and cleaned up as any other.
  sdk::ExitInfo late;
  late.signal = SIGKILL;
  late.detail = "the agent was killed by SIGKILL";
  const auto told = end_and_tell(io, sandbox, late);
  CHECK(told.limit == sdk::LimitCause::pids);
  CHECK(told.detail == "too many processes; the agent was killed by SIGKILL");
  CHECK(told.cleanup_complete);
}

TEST_CASE("a stop after the end returns that end and runs no stop step") {
  asio::io_context io;
  auto sandbox = std::make_shared<ScriptedSandbox>(io, StopSteps::give_up);
  sandbox->start();
  sdk::ExitInfo exit;
  exit.exit_code = 0;
  exit.detail = "the agent exited with 0";
  end_and_tell(io, sandbox, exit);
  auto stopped = stop_of(io, sandbox, sdk::LimitCause::disk, "too late");
  const auto told = run_until(io, stopped);
  CHECK(sandbox->stop_steps_run == 0);
  CHECK(told.detail == "the agent exited with 0");
  CHECK(told.limit == sdk::LimitCause::none);
}

TEST_CASE("a dropped handle ends a running sandbox, and leaves an ended one alone") {
  asio::io_context io;
  auto running = std::make_shared<ScriptedSandbox>(io, StopSteps::end_the_sandbox);
  running->start();
  {
    sp::ProcessHandle handle(running);
    CHECK(handle.pid() == 4242);
    CHECK(handle.stdin_fd() == 10);
    CHECK(handle.stdout_fd() == 11);
    CHECK(handle.stderr_fd() == 12);
  }
  CHECK(running->abandoned == 1);

  auto ended = std::make_shared<ScriptedSandbox>(io, StopSteps::end_the_sandbox);
  ended->start();
  sdk::ExitInfo exit;
  exit.exit_code = 0;
  end_and_tell(io, ended, exit);
  { sp::ProcessHandle handle(ended); }
  CHECK(ended->abandoned == 0);
  running->end_with(exit);
  io.poll();
}

TEST_CASE("the registry of running sandboxes counts what still runs, and ends only that") {
  asio::io_context io;
  sp::ActiveSessions<ScriptedSandbox> active;
  auto first = std::make_shared<ScriptedSandbox>(io, StopSteps::end_the_sandbox);
  auto second = std::make_shared<ScriptedSandbox>(io, StopSteps::end_the_sandbox);
  auto first_handle = active.adopt("s1", first);
  auto second_handle = active.adopt("s2", second);
  CHECK(active.is_live("s1"));
  CHECK(active.is_live("s2"));
  CHECK_FALSE(active.is_live("s3"));
  CHECK(active.live_ids() == std::set<std::string>{"s1", "s2"});

  // adopt() started the watch: the end is seen without anyone calling start().
  sdk::ExitInfo exit;
  exit.exit_code = 0;
  end_and_tell(io, first, exit);
  CHECK_FALSE(active.is_live("s1"));
  CHECK(active.live_ids() == std::set<std::string>{"s2"});

  active.abandon_all();
  CHECK(first->abandoned == 0);
  CHECK(second->abandoned == 1);

  // A sandbox dropped by its session counts as gone.
  second_handle.reset();
  second->end_with(exit);
  io.poll();
  second.reset();
  CHECK(active.live_ids().empty());
}
