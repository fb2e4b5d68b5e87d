// Chat commands through the real daemon: typed in the channel and in a session's thread, and
// as slash commands, with who may use them.

#include "core/chat/commands.hpp"
#include "core/chat/render/transcript.hpp"
#include "core/sessions/session_paths.hpp"
#include "tests/e2e/e2e_harness.hpp"

#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <thread>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;
using sessions::TurnOutcome;

const std::string kAsideGlyph = "\xF0\x9F\x92\xAC";

TEST_CASE(
    "the daemon answers !help, !usage and !model in the channel and refuses thread-only "
    "commands there",
    "[e2e]"
    "[key:agent.providers.<name>.models]") {
  E2eHarness h;
  h.set("agent.providers.anthropic.models", boost::json::array{"fake-large", "fake-small"});
  h.start();
  const auto channel = h.discord().options().channel_id;
  h.post("!help");
  REQUIRE(h.wait_for_text(channel, "!model"));
  h.post("!usage");
  REQUIRE(h.wait_for_text(channel, "provider `anthropic` has not reported its limits"));
  h.post("!model");
  REQUIRE(h.wait_for_text(channel, "`fake-small`"));
  h.post("!stop");
  REQUIRE(h.wait_for_text(channel, "!stop works"));
  const auto before = h.bot_messages(channel).size();
  h.post("!someotherbot do things");
  h.post("!status");
  REQUIRE(h.wait_for_text(channel, "live session(s)"));
  // The other bot's command got no answer: only !status added one.
  CHECK(h.bot_messages(channel).size() == before + 1);
  // None of that started a session.
  CHECK(h.discord().requests().size() > 0);
  for (const auto& r : h.discord().requests()) CHECK(r.path.find("/threads") == npos);
}

TEST_CASE("!usage tells the limits the provider's last answer carried, read by the broker",
          "[e2e]") {
  E2eHarness h;
  h.start();
  const auto thread = h.post("usage: provider count this call");
  REQUIRE(h.wait_for_text(thread, "done in"));
  h.post("!usage", thread);
  REQUIRE(h.wait_for_text(thread, "provider `anthropic`, from its answer at "));
  CHECK(h.count_text(thread, "- requests: 999 of 1000 left; resets ") == 1);
  CHECK(h.count_text(thread, "- tokens: 80000 of 80000 left; resets ") == 1);
  // The same answer in the channel, where no session is needed to ask.
  const auto channel = h.discord().options().channel_id;
  h.post("!usage");
  REQUIRE(h.wait_for_text(channel, "- requests: 999 of 1000 left"));
}

TEST_CASE("an operator's !models refresh asks the provider, and !model lists what it offers",
          "[e2e]") {
  E2eHarness h;
  h.start();
  const auto channel = h.discord().options().channel_id;
  // Asking spends calls with the real key, so it is an operator's command.
  h.post("!models refresh");
  REQUIRE(h.wait_for_text(channel, "!models was refused: only operators"));
  CHECK(h.provider().requests().empty());

  h.post("!models refresh", {}, kOperator);
  REQUIRE(h.wait_for_text(channel, "`anthropic` offers 2 model(s)"));
  const auto asked = h.provider().requests();
  REQUIRE(asked.size() == 1);
  CHECK(asked[0].target == "/v1/models");
  CHECK(asked[0].header("x-api-key") == h.provider_key());
  h.post("!model");
  REQUIRE(h.wait_for_text(channel, "`fake-model-small`"));
  // The key itself never reaches the channel.
  CHECK(h.count_text(channel, h.provider_key()) == 0);
}

TEST_CASE("in a session's thread: !ls, !cat, !file, !status, an aside, !model and !interrupt",
          "[e2e]") {
  E2eHarness h;
  h.start();
  const auto thread = h.post("cmds: write hello.txt hi there\\n\nsay wrote it");
  REQUIRE(h.wait_for_text(thread, "done in"));

  h.post("!ls", thread);
  REQUIRE(h.wait_for_text(thread, "hello.txt"));
  h.post("!cat hello.txt", thread);
  REQUIRE(h.wait_for_text(thread, "hi there"));
  h.post("!cat ../../state/threads.db", thread);
  REQUIRE(h.wait_for_text(thread, "paths stay inside the project"));
  h.post("!file hello.txt", thread);
  REQUIRE(eventually([&] {
    for (const auto& m : h.bot_messages(thread))
      for (const auto& f : m.files)
        if (f.filename == "hello.txt" && f.bytes == "hi there\n") return true;
    return false;
  }));
  h.post("!status", thread);
  REQUIRE(h.wait_for_text(thread, "idle, waiting for a prompt"));

  const auto aside = h.post("!!! between us people only", thread);
  REQUIRE(eventually([&] {
    const auto m = h.discord().message(aside);
    return m &&
           std::find(m->reactions.begin(), m->reactions.end(), kAsideGlyph) != m->reactions.end();
  }));

  // Someone not allowed is refused, and their message starts no turn.
  h.post("say from a stranger", thread, kStranger);
  REQUIRE(h.wait_for_text(thread, "not in chat.allowedUserIds"));

  h.post("!model fake-other", thread);
  REQUIRE(h.wait_for_text(thread, "this session now uses `fake-other`"));
  CHECK(h.threads_db()->find_thread(thread).value()->model == "fake-other");

  const auto long_turn = h.post("sleep 30000", thread);
  REQUIRE(eventually([&] {
    const auto t = h.turn(long_turn);
    return t && t->started_at.has_value();
  }));
  h.post("!interrupt", thread);
  REQUIRE(h.wait_for_text(thread, "interrupting the running turn"));
  REQUIRE(eventually(
      [&] {
        const auto t = h.turn(long_turn);
        return t && t->outcome == TurnOutcome::cancelled;
      },
      20s));
  CHECK(h.wait_for_text(thread, "stopped after"));

  // The aside and the stranger's words never reached the agent.
  const auto session_id = h.sessions_of(thread).at(0).session_id;
  auto transcript =
      chat::read_transcript(sessions::SessionPaths::of(h.state_dir(), session_id).record);
  REQUIRE(transcript.has_value());
  std::string recorded;
  for (const auto& line : transcript->lines) recorded += boost::json::serialize(line.entry);
  CHECK(recorded.find("wrote it") != npos);
  CHECK(recorded.find("between us") == npos);
  CHECK(recorded.find("from a stranger") == npos);
}

TEST_CASE("slash commands are registered from the table and answered like typed ones",
          "[e2e]"
          "[key:chat.guildId]") {
  E2eHarness h;
  h.start();
  REQUIRE(eventually([&] {
    const auto commands = h.discord().registered_commands();
    return commands.is_array() && commands.as_array().size() == chat::command_table().size();
  }));
  const auto thread = h.post("slash: say ready");
  REQUIRE(h.wait_for_text(thread, "done in"));
  const auto call = h.discord().send_interaction("status", {}, thread);
  REQUIRE(eventually([&] {
    for (const auto& i : h.discord().interactions())
      if (i.id == call.id && i.acknowledged &&
          i.original_content.find("idle, waiting for a prompt") != npos)
        return true;
    return false;
  }));
  const auto stop = h.discord().send_interaction("stop", {}, thread, std::string(kStranger));
  REQUIRE(eventually([&] {
    for (const auto& i : h.discord().interactions())
      if (i.id == stop.id && i.original_content.find("was refused") != npos) return true;
    return false;
  }));
  // The stranger's /stop stopped nothing.
  h.post("say still here", thread);
  REQUIRE(h.wait_for_text(thread, "still here"));
  CHECK(h.sessions_of(thread).size() == 1);
}

}  // namespace
}  // namespace errand::e2e
