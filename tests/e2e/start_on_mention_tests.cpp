// chat.startOnMention: in the served channel only a message that mentions the bot starts a
// session; once a thread is open, its replies are prompts with or without a mention.

#include "tests/e2e/e2e_harness.hpp"

#include <catch2/catch_test_macros.hpp>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;

bool thread_opened_from(E2eHarness& h, const std::string& message_id) {
  for (const auto& r : h.discord().requests())
    if (r.method == "POST" && r.path.find("/messages/" + message_id + "/threads") != npos)
      return true;
  return false;
}

TEST_CASE("with chat.startOnMention only a channel message mentioning the bot starts a session",
          "[e2e]"
          "[key:chat.startOnMention]") {
  E2eHarness h;
  h.set("chat.startOnMention", true);
  h.start();
  const auto unmentioned = h.post("quiet: say started without a mention");

  fake_discord::UserPost mentioning;
  mentioning.author_id = std::string(kOwner);
  mentioning.content = "loud: say started by a mention";
  mentioning.mention_bot = true;
  const auto thread = h.discord().post_user_message(mentioning);
  REQUIRE(h.wait_for_text(thread, "started by a mention", 60s));
  REQUIRE(h.wait_for_text(thread, "done in"));
  // The mention is errand's address, not part of the prompt or the project's name.
  CHECK(std::filesystem::is_directory(h.project_root() / "loud"));

  // The daemon handles the channel's messages in order, so the unmentioned one, posted first,
  // was passed over before the mentioned one started: no thread, no turn, no project, no reply.
  CHECK_FALSE(thread_opened_from(h, unmentioned));
  CHECK_FALSE(h.turn(unmentioned).has_value());
  CHECK(h.bot_messages(unmentioned).empty());
  CHECK_FALSE(std::filesystem::exists(h.project_root() / "quiet"));
  const auto message = h.discord().message(unmentioned);
  REQUIRE(message);
  CHECK(message->reactions.empty());

  // Inside the session's thread a reply needs no mention.
  h.post("say a reply without a mention", thread);
  REQUIRE(h.wait_for_text(thread, "a reply without a mention"));
  REQUIRE(h.wait_for_text(thread, "done in", 60s, 2));
  CHECK(h.sessions_of(thread).size() == 1);
}

}  // namespace
}  // namespace errand::e2e
