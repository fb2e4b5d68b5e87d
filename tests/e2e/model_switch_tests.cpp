// !model through the real daemon: a switch keeps the agent's conversation, a name no list holds
// is refused before the agent is asked, and the thread stays on its model across a restart;
// !usage refresh, who may ask and what it needs.

#include "tests/e2e/e2e_harness.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;

TEST_CASE(
    "!model moves a session to another model keeping its conversation, refuses a name no list "
    "holds, and the thread resumes on it after a restart",
    "[e2e]"
    "[key:agent.providers.<name>.models]"
    "[key:agent.aliases.<name>]") {
  E2eHarness h;
  h.set("agent.providers.anthropic.models", boost::json::array{"fake-model", "fake-other"});
  h.set("agent.aliases", boost::json::object{{"other", "fake-other"}});
  h.start();
  const auto remembered = unique_secret("heron-");
  const auto thread = h.post("switching: say " + remembered);
  REQUIRE(h.wait_for_text(thread, "done in"));

  // A misspelt name is refused with the one meant, and the agent is never asked: the next turn
  // still runs on the model it started on.
  h.post("!model fake-othr", thread);
  REQUIRE(h.wait_for_text(thread,
                          "`fake-othr` is not a model errand knows for anthropic; did you mean "
                          "`fake-other`? `!model` lists them"));
  h.post("history", thread);
  REQUIRE(h.wait_for_text(thread, "history: on model fake-model; "));
  // The answer streams in pieces: its last line may come after its first.
  CHECK(h.wait_for_text(thread, "- say " + remembered));

  // Switched through the alias, the agent has the earlier turns and runs on the new model.
  h.post("!model other", thread);
  REQUIRE(h.wait_for_text(thread, "this session now uses `fake-other`"));
  h.post("!model", thread);
  REQUIRE(h.wait_for_text(thread, "- `fake-other` (current)"));
  CHECK(h.count_text(thread, "- `other` = `fake-other` (current)") == 1);
  h.post("history", thread);
  REQUIRE(h.wait_for_text(thread, "history: on model fake-other; "));
  CHECK(h.wait_for_text(thread, "- say " + remembered, 60s, 2));
  CHECK(h.threads_db()->find_thread(thread).value()->model == "other");

  // threads.db keeps the thread's model: the session resumed after a restart starts on it,
  // with the conversation loaded.
  REQUIRE(h.stop() == 0);
  h.start();
  h.post("history", thread);
  REQUIRE(h.wait_for_text(thread, "history: on model fake-other; ", 90s, 2));
  CHECK(h.wait_for_text(thread, "- say " + remembered, 60s, 3));
  REQUIRE(h.sessions_of(thread).size() == 2);
  h.post("!status", thread);
  REQUIRE(h.wait_for_text(thread, "model: `fake-other`"));

  // In the channel, the models by provider, the one sessions start on marked (none here: the
  // configuration names no agent.model).
  const auto channel = h.discord().options().channel_id;
  h.post("!model");
  REQUIRE(h.wait_for_text(channel,
                          "sessions start on the default model of provider "
                          "`anthropic`\nprovider `anthropic`:\n- `fake-model`\n- "
                          "`fake-other`"));
}

TEST_CASE("!usage refresh is the thread's owner's or an operator's, and needs the broker",
          "[e2e]") {
  E2eHarness h;
  h.set("sandbox.egress.mode", "open");
  h.start();
  const auto channel = h.discord().options().channel_id;
  // In the channel no session is anyone's, so only an operator may ask.
  h.post("!usage refresh");
  REQUIRE(h.wait_for_text(channel,
                          "!usage was refused: only the owner of a session or an "
                          "operator may do that"));
  h.post("!usage refresh", {}, kOperator);
  REQUIRE(h.wait_for_text(channel, "there is no egress broker to ask through"));
  h.post("!usage soon", {}, kOperator);
  REQUIRE(h.wait_for_text(channel, "`!usage refresh` asks the provider for its usage now"));
  CHECK(h.provider().requests().empty());

  const auto thread = h.post("refreshing: say ready");
  REQUIRE(h.wait_for_text(thread, "done in"));
  h.post("!usage refresh", thread, kStranger);
  REQUIRE(h.wait_for_text(thread, "!usage was refused: only the person who started this session"));
  // The owner may, and is told why it cannot be done here.
  h.post("!usage refresh", thread);
  REQUIRE(h.wait_for_text(thread, "there is no egress broker to ask through"));
  CHECK(h.provider().requests().empty());
}

TEST_CASE(
    "!usage refresh asks the provider with one small call through the broker, and "
    "!usage then shows the windows its answer carried",
    "[e2e]") {
  E2eHarness h;
  // The one small call needs a model to ask; the broker takes agent.model.
  h.set("agent.model", "fake-model");
  h.start();
  const auto channel = h.discord().options().channel_id;
  h.post("!usage refresh", {}, kOperator);
  const bool answered = h.wait_for_text(channel, "provider `anthropic`, from its answer at ");
  INFO(h.bot_text(channel));
  REQUIRE(answered);
  CHECK(h.count_text(channel, "- requests: 999 of 1000 left; resets ") == 1);
  const auto asked = h.provider().requests();
  REQUIRE(asked.size() == 1);
  CHECK(asked[0].header("x-api-key") == h.provider_key());
  const auto body = boost::json::parse(asked[0].body).as_object();
  CHECK(body.at("max_tokens").to_number<int>() == 1);
  CHECK(body.at("model").as_string() == "fake-model");
  // What was read is kept for !usage like any answer's.
  h.post("!usage");
  REQUIRE(h.wait_for_text(channel, "- requests: 999 of 1000 left", 60s, 2));
}

}  // namespace
}  // namespace errand::e2e
