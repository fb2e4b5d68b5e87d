// The spent judgement (usage_windows.hpp) and where a new session starts because of it
// (fallback_start.hpp).

#include "core/sessions/fallback_start.hpp"
#include "core/sessions/usage_windows.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using errand::sdk::ProviderUsage;
using errand::sdk::UsageWindow;
using namespace errand::sessions;
using std::chrono::system_clock;
using namespace std::chrono_literals;

namespace {

// 2025-08-21 12:40:00 UTC
const auto kWindowsNow = system_clock::from_time_t(1755780000);
constexpr std::chrono::milliseconds kMaxWait = 15min;

UsageWindow counted(std::string name, std::uint64_t remaining,
                    std::optional<system_clock::time_point> resets_at) {
  UsageWindow w;
  w.name = std::move(name);
  w.limit = 1000;
  w.remaining = remaining;
  w.resets_at = resets_at;
  return w;
}

ProviderUsage reported(std::vector<UsageWindow> windows) {
  ProviderUsage usage;
  usage.provider = "anthropic";
  usage.observed_at = kWindowsNow - 5s;
  usage.windows = std::move(windows);
  return usage;
}

std::optional<SpentWindow> judge(const ProviderUsage& usage,
                                 std::optional<system_clock::time_point> paused_until = {}) {
  return spent_window("anthropic", {&usage, paused_until}, kMaxWait, kWindowsNow);
}

boost::json::object config_with_fallback() {
  return boost::json::parse(R"({"agent": {"provider": "anthropic", "model": "big",
      "fallback": ["backup/fake-model", "spare/spare-model"],
      "providers": {"anthropic": {}, "backup": {}, "spare": {}}}})")
      .as_object();
}

}  // namespace

TEST_CASE("a window with nothing left and a reset ahead is spent, and says why and until when",
          "[sessions][usage][key:agent.fallback]") {
  const auto name =
      GENERATE(as<std::string>{}, "requests", "tokens", "input tokens", "output tokens");
  const auto spent = judge(reported({counted(name, 0, kWindowsNow + 25min)}));
  REQUIRE(spent);
  CHECK(spent->why == name + ": 0 left");
  CHECK(spent->until == kWindowsNow + 25min);
  CHECK(spent_clause(*spent) ==
        "anthropic's usage window is spent until 13:05 UTC (" + name + ": 0 left)");
}

TEST_CASE("a utilisation window at 100% is spent", "[sessions][usage][key:agent.fallback]") {
  UsageWindow five_hours;
  five_hours.name = "5-hour";
  five_hours.used_fraction = 1.0;
  five_hours.resets_at = kWindowsNow + 2h;
  const auto spent = judge(reported({five_hours}));
  REQUIRE(spent);
  CHECK(spent->why == "5-hour: 100% used");
  five_hours.used_fraction = 0.99;
  CHECK_FALSE(judge(reported({five_hours})));
}

TEST_CASE("a window with something left, or whose reset has passed, is not spent",
          "[sessions][usage][key:agent.fallback]") {
  CHECK_FALSE(judge(reported({counted("requests", 1, kWindowsNow + 25min)})));
  CHECK_FALSE(judge(reported({counted("requests", 0, kWindowsNow)})));
  CHECK_FALSE(judge(reported({counted("requests", 0, kWindowsNow - 1s)})));
  CHECK_FALSE(judge(reported({counted("requests", 0, std::nullopt)})));
  CHECK_FALSE(spent_window("anthropic", {}, kMaxWait, kWindowsNow));
}

TEST_CASE("of several spent windows, the one spent longest is named",
          "[sessions][usage][key:agent.fallback]") {
  const auto spent = judge(reported({counted("requests", 0, kWindowsNow + 1min),
                                     counted("tokens", 0, kWindowsNow + 40min),
                                     counted("output tokens", 5, kWindowsNow + 50min)}));
  REQUIRE(spent);
  CHECK(spent->why == "tokens: 0 left");
  CHECK(spent->until == kWindowsNow + 40min);
}

TEST_CASE("a pause is spent only when it ends beyond limits.maxQueueWaitMs",
          "[sessions][usage][key:agent.fallback][key:limits.maxQueueWaitMs]") {
  const auto nothing = reported({});
  CHECK_FALSE(judge(nothing, kWindowsNow + kMaxWait));
  CHECK_FALSE(judge(nothing, kWindowsNow + 30s));
  const auto spent = judge(nothing, kWindowsNow + kMaxWait + 1s);
  REQUIRE(spent);
  CHECK_THAT(spent->why, ContainsSubstring("answered 429"));
  CHECK_THAT(spent->why, ContainsSubstring("limits.maxQueueWaitMs"));
  CHECK(spent->until == kWindowsNow + kMaxWait + 1s);
}

TEST_CASE("a session is told once per spent period", "[sessions][usage][key:agent.fallback]") {
  SpentNotices notices;
  const SpentWindow spent{"anthropic", "requests: 0 left", kWindowsNow + 10min};
  CHECK(notices.should_tell("s1", spent, kWindowsNow));
  CHECK_FALSE(notices.should_tell("s1", spent, kWindowsNow + 1min));
  CHECK(notices.should_tell("s2", spent, kWindowsNow + 1min));
  // The next spent period, after the reset.
  const SpentWindow again{"anthropic", "tokens: 0 left", kWindowsNow + 30min};
  CHECK_FALSE(notices.should_tell("s1", again, kWindowsNow + 9min));
  CHECK(notices.should_tell("s1", again, kWindowsNow + 10min));
  notices.forget("s2");
  CHECK(notices.should_tell("s2", spent, kWindowsNow + 2min));
}

TEST_CASE("a new session starts on the first fallback whose provider is not spent",
          "[sessions][usage][key:agent.fallback]") {
  const auto config = config_with_fallback();
  const SpentWindow anthropic_spent{"anthropic", "requests: 0 left", kWindowsNow + 25min};
  SECTION("the starting provider is not spent: nothing changes") {
    const auto choice = choose_start(config, [](std::string_view) { return std::nullopt; });
    CHECK(choice.provider == "anthropic");
    CHECK(choice.model.empty());
    CHECK(choice.notice.empty());
  }
  SECTION("the first fallback is taken") {
    const auto choice = choose_start(config, [&](std::string_view p) -> std::optional<SpentWindow> {
      if (p == "anthropic") return anthropic_spent;
      return std::nullopt;
    });
    CHECK(choice.provider == "backup");
    CHECK(choice.model == "fake-model");
    CHECK(choice.notice ==
          "anthropic's usage window is spent until 13:05 UTC (requests: 0 left), so this "
          "session starts on backup/fake-model");
  }
  SECTION("a spent fallback is passed over") {
    const auto choice = choose_start(config, [&](std::string_view p) -> std::optional<SpentWindow> {
      if (p == "spare") return std::nullopt;
      return SpentWindow{std::string(p), "tokens: 0 left", kWindowsNow + 25min};
    });
    CHECK(choice.provider == "spare");
    CHECK(choice.model == "spare-model");
  }
  SECTION("every fallback spent too: its own model, and the queue holds it") {
    const auto choice = choose_start(config, [&](std::string_view p) -> std::optional<SpentWindow> {
      return SpentWindow{std::string(p), "requests: 0 left", kWindowsNow + 25min};
    });
    CHECK(choice.provider == "anthropic");
    CHECK(choice.model.empty());
    CHECK_THAT(choice.notice, ContainsSubstring("and so is every agent.fallback provider's"));
    CHECK_THAT(choice.notice, ContainsSubstring("the queue will hold its prompts"));
  }
}

TEST_CASE("without agent.fallback a spent provider changes nothing",
          "[sessions][usage][key:agent.fallback]") {
  const auto config = boost::json::parse(R"({"agent": {"provider": "anthropic"}})").as_object();
  const auto choice = choose_start(config, [](std::string_view p) -> std::optional<SpentWindow> {
    return SpentWindow{std::string(p), "requests: 0 left", kWindowsNow + 25min};
  });
  CHECK(choice.provider == "anthropic");
  CHECK(choice.notice.empty());
}

TEST_CASE("a fallback start is recorded as provider/model and restored on resume",
          "[sessions][usage][key:agent.fallback]") {
  const auto config = config_with_fallback();
  CHECK(thread_model(config, "backup", "fake-model") == "backup/fake-model");
  CHECK(thread_model(config, "anthropic", "big") == "big");
  CHECK(thread_model(config, "backup", "") == "");
  const auto restored = restore_thread_model(config, "backup/fake-model");
  CHECK(restored.provider == "backup");
  CHECK(restored.model == "fake-model");
  // A model of agent.provider, even one with a slash in its id, stays there.
  const auto own = restore_thread_model(config, "meta/llama-3");
  CHECK(own.provider == "anthropic");
  CHECK(own.model == "meta/llama-3");
  const auto plain = restore_thread_model(config, "big");
  CHECK(plain.provider == "anthropic");
  CHECK(plain.model == "big");
}
