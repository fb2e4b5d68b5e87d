// The queue's own timer, on the real clock with short limits: nothing calls sweep() here, so
// these pass only if the queue wakes itself. The io_context runs until the awaited callback
// fires, with a generous cap that only a broken timer reaches.

#include "core/daemon/system_clock.hpp"
#include "core/sessions/queue.hpp"

#include <spdlog/logger.h>
#include <spdlog/sinks/null_sink.h>
#include <boost/asio/io_context.hpp>
#include <catch2/catch_test_macros.hpp>

using namespace std::chrono_literals;
using errand::sessions::PromptSubmission;
using errand::sessions::QueueLimits;
using errand::sessions::TurnQueue;
using errand::sessions::TurnTicket;

namespace {

std::shared_ptr<spdlog::logger> quiet() {
  return std::make_shared<spdlog::logger>("queue", std::make_shared<spdlog::sinks::null_sink_mt>());
}

template <class Done>
void run_until(boost::asio::io_context& io, Done done) {
  const auto cap = std::chrono::steady_clock::now() + 10s;
  while (!done() && std::chrono::steady_clock::now() < cap) {
    io.restart();
    io.run_for(20ms);
  }
}

}  // namespace

TEST_CASE("a waiting prompt expires on the queue's own timer, not before its time") {
  boost::asio::io_context io;
  errand::daemon::SystemClock clock;
  QueueLimits limits;
  limits.max_concurrent_turns = 1;
  limits.max_queue_wait = 60ms;
  TurnQueue queue(io.get_executor(), clock, limits, quiet());
  auto held = queue.submit(PromptSubmission{"a", "m1", {}, {}, {}, {}});
  REQUIRE(std::holds_alternative<errand::sessions::Admitted>(held));

  bool expired = false;
  std::chrono::steady_clock::time_point expired_at;
  PromptSubmission waiting{"b", "m2", {}, {}, {}, [&] {
                             expired = true;
                             expired_at = std::chrono::steady_clock::now();
                           }};
  const auto queued_at = std::chrono::steady_clock::now();
  REQUIRE(std::holds_alternative<errand::sessions::Queued>(queue.submit(std::move(waiting))));
  run_until(io, [&] { return expired; });
  REQUIRE(expired);
  CHECK(expired_at - queued_at >= 60ms);
  CHECK(queue.snapshot().queued == 0);
}

TEST_CASE("admission resumes on its own when a provider pause ends") {
  boost::asio::io_context io;
  errand::daemon::SystemClock clock;
  TurnQueue queue(io.get_executor(), clock, QueueLimits{}, quiet());
  // Read before the pause is set, so that however long this thread is kept from running between
  // the two lines, the pause's 80 ms still lie after it.
  const auto paused_at = std::chrono::steady_clock::now();
  queue.pause("anthropic", clock.now() + 80ms);
  std::optional<TurnTicket> ticket;
  std::chrono::steady_clock::time_point admitted_at;
  PromptSubmission prompt{"a",
                          "m1",
                          {},
                          [&](TurnTicket t) {
                            ticket = std::move(t);
                            admitted_at = std::chrono::steady_clock::now();
                          },
                          {},
                          {}};
  REQUIRE(std::holds_alternative<errand::sessions::Queued>(queue.submit(std::move(prompt))));
  run_until(io, [&] { return ticket.has_value(); });
  REQUIRE(ticket);
  CHECK(ticket->held());
  // The pause is on the wall clock, whose resolution differs; allow it a few milliseconds.
  CHECK(admitted_at - paused_at >= 75ms);
}
