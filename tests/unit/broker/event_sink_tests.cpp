#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "tests/support/result_printing.hpp"
#include "tests/unit/broker/support/broker_harness.hpp"

using Catch::Matchers::ContainsSubstring;
using errand::broker::testing::base_config;
using errand::broker::testing::BrokerHarness;
using errand::broker::testing::RecordingEvents;
namespace sdk = errand::sdk;

TEST_CASE("the broker takes its event sink once: a second start is refused") {
  BrokerHarness harness(base_config());
  RecordingEvents other;
  const auto again = harness.broker().start(other);
  REQUIRE_FALSE(again.has_value());
  CHECK(again.error().kind == sdk::Error::Kind::refused);
  CHECK_THAT(again.error().message, ContainsSubstring("already started"));
  // The refusal leaves the broker started with its first sink.
  CHECK(harness.try_open("s-after-second-start").has_value());
}

TEST_CASE("a broker that was never started refuses to open a session, so no event is lost") {
  BrokerHarness harness(base_config(), {}, 2, /*start_broker=*/false);
  const auto opened = harness.try_open("s-unstarted");
  REQUIRE_FALSE(opened.has_value());
  CHECK(opened.error().kind == sdk::Error::Kind::refused);
  CHECK_THAT(opened.error().message, ContainsSubstring("s-unstarted"));
  CHECK_THAT(opened.error().message, ContainsSubstring("not started"));
  CHECK_FALSE(std::filesystem::exists(harness.state_dir() / "brokers" / "s-unstarted.sock"));
}
