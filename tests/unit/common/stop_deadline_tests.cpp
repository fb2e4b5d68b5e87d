// A stop step's deadline: the wait ends as soon as what it waits for happens, or at its deadline
// and no later than a little after it, and the warning names the session, the step, the deadline
// and the escalation.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <future>
#include <optional>

#include "common/stop_deadline.hpp"

namespace asio = boost::asio;
using errand::common::stop_overrun_warning;
using errand::common::wait_done_within;
using namespace std::chrono_literals;

namespace {

struct Waited {
  bool done = false;
  std::chrono::steady_clock::duration took{};
};

// Runs wait_done_within(limit) on a strand; change_after (if set) makes the awaited thing happen
// then, the way a watcher does: set the state, cancel the change timer.
Waited wait_with(std::chrono::milliseconds limit,
                 std::optional<std::chrono::milliseconds> change_after) {
  asio::io_context io;
  auto strand = asio::make_strand(io);
  asio::steady_timer changed(strand, asio::steady_timer::time_point::max());
  asio::steady_timer changer(strand);
  bool ended = false;
  // Taken before the change is armed: the change's own clock starts there, so a wait that
  // ended with it cannot measure shorter than change_after.
  const auto started = std::chrono::steady_clock::now();
  if (change_after) {
    changer.expires_after(*change_after);
    changer.async_wait([&](boost::system::error_code ec) {
      if (ec) return;
      ended = true;
      changed.cancel();
    });
  }
  auto result = asio::co_spawn(strand, wait_done_within(changed, limit, [&] { return ended; }),
                               asio::use_future);
  while (result.wait_for(0ms) != std::future_status::ready) io.run_one();
  const Waited w{result.get(), std::chrono::steady_clock::now() - started};
  changer.cancel();
  io.poll();
  return w;
}

}  // namespace

TEST_CASE(
    "a stop step's wait ends as soon as the awaited thing happens, well before its deadline") {
  const auto w = wait_with(5000ms, 50ms);
  CHECK(w.done);
  CHECK(w.took >= 50ms);
  CHECK(w.took < 2000ms);
}

TEST_CASE("a stop step's wait gives up at its deadline when the awaited thing never happens") {
  const auto w = wait_with(200ms, std::nullopt);
  CHECK_FALSE(w.done);
  CHECK(w.took >= 200ms);
  CHECK(w.took < 2000ms);
}

TEST_CASE("a stop step's wait reports what held at its end, even when it happened late") {
  // The change comes after the deadline: the wait has already given up and says so.
  const auto w = wait_with(100ms, 400ms);
  CHECK_FALSE(w.done);
  CHECK(w.took < 400ms);
}

TEST_CASE("a stop step that is already done does not wait at all") {
  asio::io_context io;
  auto strand = asio::make_strand(io);
  asio::steady_timer changed(strand, asio::steady_timer::time_point::max());
  auto result = asio::co_spawn(strand, wait_done_within(changed, 60000ms, [] { return true; }),
                               asio::use_future);
  const auto started = std::chrono::steady_clock::now();
  io.run();
  CHECK(result.get());
  CHECK(std::chrono::steady_clock::now() - started < 1000ms);
}

TEST_CASE("the overrun warning names the session, the step, its deadline and the escalation") {
  CHECK(stop_overrun_warning("session s-1", "podman stop", 32000ms,
                             "removing the container with podman rm --force") ==
        "session s-1: podman stop did not finish within 32000 ms; removing the container with "
        "podman rm --force");
}
