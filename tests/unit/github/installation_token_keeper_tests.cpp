// The token keeper under a manual clock: an hour passes in a moment, the renewal comes in the
// margin before expiry, a failed renewal is reported, and a token is dropped at its expiry.

#include "core/github/installation_token_keeper.hpp"
#include "tests/support/manual_clock.hpp"
#include "tests/support/poll_until.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <mutex>
#include <thread>

using namespace errand::github;
using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;
namespace asio = boost::asio;

namespace {

// GitHub as the keeper sees it: each mint hands out a token valid for an hour from the clock's
// now, or fails while `failing` is set. What the keeper was told is recorded.
struct KeeperScene {
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  errand::test::ManualClock clock;
  std::mutex mutex;
  bool failing = false;
  int mints = 0;
  std::vector<std::string> tokens, failures;
  int expirations = 0;
  std::shared_ptr<InstallationTokenKeeper> keeper;
  std::thread runner;

  KeeperScene(std::chrono::minutes lifetime = 60min) {
    auto mint = [this, lifetime](std::chrono::system_clock::time_point now)
        -> asio::awaitable<errand::sdk::Result<InstallationToken>> {
      std::lock_guard lock(mutex);
      ++mints;
      if (failing)
        co_return errand::sdk::make_error("GitHub refused to mint an installation token (500)");
      co_return InstallationToken{"ghs_token" + std::to_string(mints), now + lifetime};
    };
    TokenKeeperCallbacks callbacks{[this](const InstallationToken& t) {
                                     std::lock_guard lock(mutex);
                                     tokens.push_back(t.token);
                                   },
                                   [this](const std::string& why) {
                                     std::lock_guard lock(mutex);
                                     failures.push_back(why);
                                   },
                                   [this] {
                                     std::lock_guard lock(mutex);
                                     ++expirations;
                                   }};
    TokenKeeperTiming timing;
    timing.tick = 2ms;
    keeper = std::make_shared<InstallationTokenKeeper>(io.get_executor(), clock, mint, callbacks,
                                                       timing);
    runner = std::thread([this] { io.run(); });
  }
  ~KeeperScene() {
    asio::post(io, [this] { keeper->stop(); });
    work.reset();
    runner.join();
  }
  errand::sdk::Result<InstallationToken> start() {
    return asio::co_spawn(io, keeper->start(), asio::use_future).get();
  }
  // Moves the clock on the keeper's thread, so it reads one time per tick.
  void advance(std::chrono::milliseconds by) {
    asio::co_spawn(
        io,
        [this, by]() -> asio::awaitable<void> {
          clock.advance(by);
          co_return;
        },
        asio::use_future)
        .get();
  }
  template <class F>
  auto locked(F read) {
    std::lock_guard lock(mutex);
    return read();
  }
};

}  // namespace

TEST_CASE("the keeper mints at start and renews ten minutes before the hour is up",
          "[github][keeper]") {
  KeeperScene scene;
  const auto first = scene.start();
  REQUIRE(first.has_value());
  CHECK(first->token == "ghs_token1");
  CHECK(scene.locked([&] { return scene.tokens; }) == std::vector<std::string>{"ghs_token1"});

  scene.advance(49min);
  std::this_thread::sleep_for(50ms);  // many ticks: none may renew yet
  CHECK(scene.locked([&] { return scene.mints; }) == 1);

  scene.advance(2min);
  CHECK(errand::test::poll_until(
      [&] { return scene.locked([&] { return scene.tokens.size(); }) == 2; }, 5s));
  CHECK(scene.locked([&] { return scene.tokens.back(); }) == "ghs_token2");
  CHECK(scene.locked([&] { return scene.expirations; }) == 0);
  CHECK(scene.locked([&] { return scene.failures.empty(); }));
}

TEST_CASE("a short-lived token is renewed a quarter of its lifetime before it expires",
          "[github][keeper]") {
  KeeperScene scene(8min);
  REQUIRE(scene.start().has_value());
  scene.advance(5min);  // 3 minutes left: more than a quarter of 8
  std::this_thread::sleep_for(50ms);
  CHECK(scene.locked([&] { return scene.mints; }) == 1);
  scene.advance(1min + 30s);  // 1.5 minutes left: inside the quarter
  CHECK(
      errand::test::poll_until([&] { return scene.locked([&] { return scene.mints; }) == 2; }, 5s));
}

TEST_CASE("a failed renewal is reported, retried after a pause, and the token dropped at expiry",
          "[github][keeper]") {
  KeeperScene scene;
  REQUIRE(scene.start().has_value());
  scene.locked([&] { return scene.failing = true; });
  scene.advance(51min);
  REQUIRE(errand::test::poll_until(
      [&] { return scene.locked([&] { return scene.failures.size(); }) == 1; }, 5s));
  CHECK_THAT(scene.locked([&] { return scene.failures.front(); }), ContainsSubstring("(500)"));
  // The next attempt waits for the backoff, not the next tick.
  std::this_thread::sleep_for(50ms);
  CHECK(scene.locked([&] { return scene.mints; }) == 2);
  CHECK(scene.locked([&] { return scene.expirations; }) == 0);

  scene.advance(20s);
  REQUIRE(errand::test::poll_until(
      [&] { return scene.locked([&] { return scene.failures.size(); }) == 2; }, 5s));

  scene.advance(9min);  // past the hour: the old token must go
  REQUIRE(errand::test::poll_until(
      [&] { return scene.locked([&] { return scene.expirations; }) == 1; }, 5s));

  scene.locked([&] { return scene.failing = false; });
  scene.advance(3min);
  REQUIRE(errand::test::poll_until(
      [&] { return scene.locked([&] { return scene.tokens.size(); }) == 2; }, 5s));
  CHECK(scene.locked([&] { return scene.expirations; }) == 1);
}

TEST_CASE("a keeper whose first mint fails starts no loop", "[github][keeper]") {
  KeeperScene scene;
  scene.locked([&] { return scene.failing = true; });
  const auto first = scene.start();
  REQUIRE_FALSE(first.has_value());
  scene.advance(2h);
  std::this_thread::sleep_for(50ms);
  CHECK(scene.locked([&] { return scene.mints; }) == 1);
  CHECK(scene.locked([&] { return scene.tokens.empty(); }));
  CHECK(scene.locked([&] { return scene.expirations; }) == 0);
}
