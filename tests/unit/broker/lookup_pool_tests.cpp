#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <thread>

#include "plugins/broker/relay/lookup_pool.hpp"
#include "tests/unit/broker/support/fixed_resolver.hpp"
#include "tests/unit/broker/support/stalling_lookup.hpp"

using namespace errand::broker;
using namespace errand::broker::testing;
using namespace std::chrono_literals;

namespace {

LookupRequest request(std::string host, std::string session, LookupLane lane = LookupLane::tunnel,
                      std::chrono::milliseconds within = std::chrono::seconds(30)) {
  return {std::move(host), std::move(session), lane, std::chrono::steady_clock::now() + within,
          /*owner=*/{}};
}

// Submits a lookup and hands back its answer when it comes.
std::future<Resolution> ask(LookupPool& pool, const LookupRequest& r) {
  auto promise = std::make_shared<std::promise<Resolution>>();
  auto answer = promise->get_future();
  pool.resolve(r, [promise](Resolution res) { promise->set_value(std::move(res)); });
  return answer;
}

bool answered_within(std::future<Resolution>& f, std::chrono::milliseconds t) {
  return f.wait_for(t) == std::future_status::ready;
}

}  // namespace

TEST_CASE("one session's stalled lookups hold no more than its share of a lane", "[lookup_pool]") {
  auto lookup = std::make_shared<StallingLookup>();
  const ReleaseAtEnd release(lookup);
  lookup->stall("stall.test");
  lookup->map("ok.test", "192.0.2.10");
  LookupPool pool(StallingLookup::of(lookup), {{4, 2, 5}, {2, 1, 5}});

  std::vector<std::future<Resolution>> stalled;
  for (int i = 0; i < 5; ++i) stalled.push_back(ask(pool, request("stall.test", "flood")));
  REQUIRE(lookup->wait_for_stalled(2));
  // Two threads are held and three lookups wait; the session's sixth is refused at once.
  auto refused = ask(pool, request("stall.test", "flood"));
  REQUIRE(answered_within(refused, 2s));
  const auto r = refused.get();
  CHECK(r.refused);
  CHECK(r.addresses.empty());
  CHECK(r.failure.find("already has 5 tunnel lookups in flight") != std::string::npos);

  // Another session's tunnel lookup runs on the threads the flood may not take.
  auto other = ask(pool, request("ok.test", "other"));
  REQUIRE(answered_within(other, 2s));
  CHECK(other.get().addresses.size() == 1);
  CHECK(lookup->stalled_now() == 2);
}

TEST_CASE("two sessions of one person hold no more than that person's share of a lane",
          "[lookup_pool]") {
  auto lookup = std::make_shared<StallingLookup>();
  const ReleaseAtEnd release(lookup);
  lookup->stall("stall.test");
  lookup->map("ok.test", "192.0.2.10");
  // Four threads; a session may run two lookups and queue five, a person two and eight.
  LookupPool pool(StallingLookup::of(lookup), {{4, 2, 5, 2, 8}, {2, 1, 5, 1, 8}});
  const auto of_alice = [](const std::string& session) {
    auto r = request("stall.test", session);
    r.owner = "alice";
    return r;
  };
  std::vector<std::future<Resolution>> stalled;
  for (int i = 0; i < 4; ++i) {
    stalled.push_back(ask(pool, of_alice("alice-1")));
    stalled.push_back(ask(pool, of_alice("alice-2")));
  }
  // Each session could run two, but together they are one person's: two threads, not four.
  REQUIRE(lookup->wait_for_stalled(2));
  std::this_thread::sleep_for(100ms);
  CHECK(lookup->stalled_now() == 2);

  // Someone else's lookup runs on the threads alice's sessions may not take.
  auto bob = request("ok.test", "bob-1");
  bob.owner = "bob";
  auto other = ask(pool, bob);
  REQUIRE(answered_within(other, 2s));
  CHECK(other.get().addresses.size() == 1);

  // Eight in flight is alice's most: a ninth is refused at once, though its session has room.
  auto refused = ask(pool, of_alice("alice-3"));
  REQUIRE(answered_within(refused, 2s));
  const auto r = refused.get();
  CHECK(r.refused);
  CHECK(r.failure.find("the sessions of this session's owner already have 8 tunnel lookups in "
                       "flight") != std::string::npos);
  CHECK(lookup->stalled_now() == 2);
}

TEST_CASE("provider hosts look up on their own lane, whatever the tunnels do", "[lookup_pool]") {
  auto lookup = std::make_shared<StallingLookup>();
  const ReleaseAtEnd release(lookup);
  lookup->stall("stall.test");
  lookup->map("provider.test", "192.0.2.20");
  LookupPool pool(StallingLookup::of(lookup), {{2, 2, 16}, {1, 1, 16}});
  std::vector<std::future<Resolution>> stalled;
  // Two sessions fill every tunnel thread.
  stalled.push_back(ask(pool, request("stall.test", "a")));
  stalled.push_back(ask(pool, request("stall.test", "b")));
  REQUIRE(lookup->wait_for_stalled(2));
  auto tunnel = ask(pool, request("provider.test", "c"));
  auto provider = ask(pool, request("provider.test", "c", LookupLane::provider));
  REQUIRE(answered_within(provider, 2s));
  CHECK(provider.get().addresses.size() == 1);
  CHECK_FALSE(answered_within(tunnel, 100ms));
}

TEST_CASE("a lookup still queued when its caller gave up is never started", "[lookup_pool]") {
  auto lookup = std::make_shared<StallingLookup>();
  auto release = std::make_unique<ReleaseAtEnd>(lookup);
  lookup->stall("stall.test");
  lookup->map("late.test", "192.0.2.30");
  LookupPool pool(StallingLookup::of(lookup), {{1, 1, 16}, {1, 1, 16}});
  auto held = ask(pool, request("stall.test", "a"));
  REQUIRE(lookup->wait_for_stalled(1));
  auto late = ask(pool, request("late.test", "a", LookupLane::tunnel, 50ms));
  std::this_thread::sleep_for(150ms);
  release.reset();
  REQUIRE(answered_within(held, 5s));
  auto after = ask(pool, request("late.test", "a"));
  REQUIRE(answered_within(after, 5s));
  // late.test ran once, for the caller still waiting; the one past its deadline never ran.
  const auto started = lookup->started();
  CHECK(std::count(started.begin(), started.end(), "late.test") == 1);
  // Its callback was dropped uncalled.
  REQUIRE(answered_within(late, 0ms));
  CHECK_THROWS_AS(late.get(), std::future_error);
}

TEST_CASE("destroying the pool does not wait for a stalled lookup", "[lookup_pool]") {
  auto lookup = std::make_shared<StallingLookup>();
  const ReleaseAtEnd release(lookup);
  lookup->stall("stall.test");
  std::future<Resolution> held;
  const auto started = std::chrono::steady_clock::now();
  {
    LookupPool pool(StallingLookup::of(lookup));
    held = ask(pool, request("stall.test", "a"));
    REQUIRE(lookup->wait_for_stalled(1));
  }
  CHECK(std::chrono::steady_clock::now() - started < 5s);
  // The detached thread still answers once its lookup returns.
  lookup->release();
  REQUIRE(answered_within(held, 5s));
  CHECK(held.get().failure == "the test let a stalled lookup go");
}

TEST_CASE("a lookup that outlives the io_context it was asked from touches none of it",
          "[lookup_pool]") {
  // The resolver keeps the callback past the io_context, as a stalled getaddrinfo does when
  // the daemon stops. AddressSanitizer reports any use of the freed io_context here.
  auto resolver = std::make_shared<FixedResolver>();
  resolver->hang("slow.test");
  bool timed_out = false;
  {
    boost::asio::io_context io;
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
          LookupRequest r{"slow.test", "s", LookupLane::tunnel,
                          std::chrono::steady_clock::now() + 20ms, /*owner=*/{}};
          const auto answer = co_await resolve_within(*resolver, std::move(r));
          timed_out = answer.timed_out;
        },
        boost::asio::detached);
    io.run();
  }
  CHECK(timed_out);
  // Answering now, and then dropping the callback, must reach nothing of the io_context.
  CHECK(resolver->answer_held("slow.test") == 1);
  resolver.reset();
}

TEST_CASE("an io_context destroyed mid-lookup leaves the lookup harmless", "[lookup_pool]") {
  auto resolver = std::make_shared<FixedResolver>();
  resolver->hang("slow.test");
  {
    boost::asio::io_context io;
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
          LookupRequest r{"slow.test", "s", LookupLane::tunnel,
                          std::chrono::steady_clock::now() + 30s, /*owner=*/{}};
          co_await resolve_within(*resolver, std::move(r));
        },
        boost::asio::detached);
    io.run_for(20ms);
    // The coroutine is still waiting; the io_context goes with it suspended.
  }
  CHECK(resolver->answer_held("slow.test") == 1);
}
