// The core's count of delegate calls: a turn's allowance, and the tallies !status reports.

#include "core/sessions/delegate_ledger.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace errand::sessions;
using Catch::Matchers::ContainsSubstring;

namespace {

errand::sdk::DelegateReport answered(std::uint64_t chars) {
  errand::sdk::DelegateReport report;
  report.session_id = "s1";
  report.provider = "anthropic";
  report.model = "fake-flash";
  report.artefact_chars = chars;
  report.input_tokens = 100;
  report.output_tokens = 20;
  return report;
}

}  // namespace

TEST_CASE("a session without agent.delegate, or between turns, is never admitted", "[delegate]") {
  DelegateLedger ledger;
  CHECK_THAT(ledger.admit("s1"), ContainsSubstring("agent.delegate is not configured"));
  ledger.open("s1", 2);
  CHECK_THAT(ledger.admit("s1"), ContainsSubstring("only while a turn runs"));
  ledger.turn_started("s1");
  CHECK(ledger.admit("s1").empty());
  ledger.turn_ended("s1");
  CHECK_THAT(ledger.admit("s1"), ContainsSubstring("only while a turn runs"));
  ledger.close("s1");
  CHECK_THAT(ledger.admit("s1"), ContainsSubstring("not configured"));
}

TEST_CASE("a turn's allowance is perTurn calls, and the next turn has a new one", "[delegate]") {
  DelegateLedger ledger;
  ledger.open("s1", 2);
  ledger.turn_started("s1");
  CHECK(ledger.admit("s1").empty());
  CHECK(ledger.admit("s1").empty());
  const auto refused = ledger.admit("s1");
  CHECK_THAT(refused, ContainsSubstring("already made its 2 delegate calls"));
  // The refusal was not counted.
  CHECK(ledger.stats("s1")->turn.calls == 2);
  ledger.turn_ended("s1");
  ledger.turn_started("s1");
  CHECK(ledger.admit("s1").empty());
  CHECK(ledger.stats("s1")->turn.calls == 1);
  CHECK(ledger.stats("s1")->session.calls == 3);
}

TEST_CASE("finished calls add their tokens, cost and characters to the turn and the session",
          "[delegate]") {
  DelegateLedger ledger;
  ledger.open("s1", 8);
  ledger.turn_started("s1");
  REQUIRE(ledger.admit("s1").empty());
  ledger.finish(answered(1000), 0.5);
  auto failed = answered(400);
  failed.outcome = errand::sdk::DelegateReport::Outcome::deadline;
  failed.input_tokens.reset();
  failed.output_tokens.reset();
  REQUIRE(ledger.admit("s1").empty());
  ledger.finish(failed, std::nullopt);
  const auto stats = ledger.stats("s1");
  REQUIRE(stats);
  CHECK(stats->session.answered == 1);
  CHECK(stats->session.input_tokens == 100);
  CHECK(stats->session.artefact_chars == 1400);
  const auto text = describe_delegates(*stats);
  CHECK_THAT(text, ContainsSubstring("delegate, this turn: 2 of 8 calls (1 answered), 100 tokens "
                                     "in and 20 out, cost 0.5000 USD, 1400 characters (about 350 "
                                     "tokens) kept out of the context\ndelegate, this session: 2 "
                                     "calls (1 answered)"));
  // A report for a session the ledger no longer holds is dropped, not counted elsewhere.
  ledger.close("s1");
  ledger.finish(answered(5), std::nullopt);
  CHECK(!ledger.stats("s1"));
}

TEST_CASE("characters are estimated at four a token, rounding up", "[delegate]") {
  CHECK(estimated_tokens(0) == 0);
  CHECK(estimated_tokens(1) == 1);
  CHECK(estimated_tokens(4) == 1);
  CHECK(estimated_tokens(1000000) == 250000);
}
