#include <catch2/catch_test_macros.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_future.hpp>
#include <thread>

#include "plugins/broker/provider/provider_pacer.hpp"

using namespace errand::broker;
using namespace std::chrono;

TEST_CASE("retry-after is read as seconds or an HTTP date", "[pacer]") {
  const auto now = system_clock::from_time_t(784111777);  // Sun, 06 Nov 1994 08:49:37 GMT
  CHECK(parse_retry_after("3", now) == seconds(3));
  CHECK(parse_retry_after(" 120 ", now) == seconds(120));
  CHECK(parse_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now) == seconds(10));
  CHECK(parse_retry_after("Sun, 06 Nov 1994 08:49:00 GMT", now) == seconds(0));
  CHECK_FALSE(parse_retry_after("", now));
  CHECK_FALSE(parse_retry_after("soon", now));
  CHECK_FALSE(parse_retry_after("-4", now));
}

TEST_CASE("a 429 without retry-after pauses for a backoff that doubles to 60 s and resets",
          "[pacer]") {
  boost::asio::io_context io;
  std::vector<system_clock::time_point> pauses;
  ProviderPacer::Events events;
  events.paused = [&](const std::string&, system_clock::time_point until) {
    pauses.push_back(until);
  };
  auto pacer = std::make_shared<ProviderPacer>(io.get_executor(), events,
                                               [] { return system_clock::now(); });
  // Each 429 lands while the earlier pause still runs, so only a longer one is announced.
  std::vector<long> announced;
  for (int i = 0; i < 8; ++i) {
    const auto before = system_clock::now();
    pacer->note_answer("p", 429, "");
    io.poll();
    if (!pauses.empty()) {
      announced.push_back(
          duration_cast<seconds>(pauses.back() - before + milliseconds(500)).count());
      pauses.clear();
    }
  }
  CHECK(announced == std::vector<long>{1, 2, 4, 8, 16, 32, 60, 60});
  CHECK(pacer->paused("p"));
  pacer->note_answer("p", 200, "");
  // A success resets the backoff; the pause already running still holds.
  CHECK(pacer->paused("p"));
}

TEST_CASE("in-flight calls are bounded and queued in order", "[pacer]") {
  boost::asio::io_context io;
  auto pacer = std::make_shared<ProviderPacer>(io.get_executor(), ProviderPacer::Events{},
                                               [] { return system_clock::now(); });
  auto strand = boost::asio::make_strand(io);
  std::vector<int> order;
  std::vector<ProviderPacer::Slot> held;
  for (int i = 0; i < 4; ++i) {
    boost::asio::co_spawn(
        strand,
        [&, i]() -> boost::asio::awaitable<void> {
          auto slot = co_await pacer->acquire("p", 2);
          order.push_back(i);
          held.push_back(std::move(slot));
        },
        boost::asio::detached);
  }
  io.poll();
  CHECK(order == std::vector<int>{0, 1});
  CHECK(pacer->in_flight("p") == 2);
  held.erase(held.begin());
  io.poll();
  CHECK(order == std::vector<int>{0, 1, 2});
  held.clear();
  io.poll();
  CHECK(order == std::vector<int>{0, 1, 2, 3});
  held.clear();
  CHECK(pacer->in_flight("p") == 0);
}
