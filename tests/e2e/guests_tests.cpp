// A thread's guests (!allow, !deny, !guests), !then, !pwd and !shutdown through the real daemon,
// the bailey sandbox and the fake Discord.

#include "tests/e2e/e2e_harness.hpp"
#include "tests/e2e/web_client.hpp"
#include "tests/e2e/web_session.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;
using sessions::TurnOutcome;
namespace json = boost::json;

// Neither in chat.allowedUserIds nor an operator: only the owner's !allow lets them in.
constexpr std::string_view kGuest = "800000000000000008";
constexpr std::string_view kBot = "300000000000000003";

std::string from_guest(E2eHarness& h, const std::string& text, const std::string& thread) {
  return h.post(text, thread, kGuest);
}

TEST_CASE(
    "a guest the owner allows prompts and reads, cannot steer, and stays one across a restart",
    "[e2e]") {
  E2eHarness h;
  h.start();
  const auto thread = h.post("guests: write notes.txt kept for the guest\\n\nsay ready");
  REQUIRE(h.wait_for_text(thread, "done in"));

  const auto before = from_guest(h, "say let me in", thread);
  REQUIRE(h.wait_for_text(thread, "nor a guest of this thread"));
  REQUIRE(eventually([&] {
    const auto t = h.turn(before);
    return !t || !t->started_at.has_value();
  }));

  // Refused edits change nothing.
  h.post("!allow bob", thread);
  REQUIRE(h.wait_for_text(thread, "`bob` is not an account"));
  // A mention of the bot is taken off every message before it is read, so only the bare id
  // can name it.
  h.post("!allow " + std::string(kBot), thread);
  REQUIRE(h.wait_for_text(thread, "is errand itself"));
  from_guest(h, "!allow <@" + std::string(kGuest) + ">", thread);
  REQUIRE(h.wait_for_text(thread, "!allow was refused"));
  CHECK(h.threads_db()->find_thread(thread).value()->guests.empty());

  h.post("!allow <@!" + std::string(kGuest) + ">", thread);
  REQUIRE(h.wait_for_text(thread, "is a guest of this thread now"));
  h.post("!allow " + std::string(kGuest), thread);
  REQUIRE(h.wait_for_text(thread, "a guest of this thread already"));
  CHECK(h.threads_db()->find_thread(thread).value()->guests ==
        std::vector<std::string>{std::string(kGuest)});

  from_guest(h, "say the guest was here", thread);
  REQUIRE(h.wait_for_text(thread, "the guest was here"));
  from_guest(h, "!cat notes.txt", thread);
  REQUIRE(h.wait_for_text(thread, "kept for the guest"));
  from_guest(h, "!pwd", thread);
  REQUIRE(h.wait_for_text(thread, "project `guests`; the agent works in it at `/workspace`"));
  from_guest(h, "!guests", thread);
  REQUIRE(h.wait_for_text(thread, "guests (1): <@" + std::string(kGuest) + ">"));

  // Stopping belongs to the owner and operators.
  from_guest(h, "!stop", thread);
  REQUIRE(h.wait_for_text(thread, "a guest may prompt and read the project"));
  from_guest(h, "!model fake-other", thread);
  REQUIRE(h.wait_for_text(thread, "!model was refused"));
  CHECK(h.sessions_of(thread).size() == 1);
  CHECK_FALSE(h.sessions_of(thread).at(0).ended_at.has_value());

  // threads.db keeps the guest: after a restart the guest resumes the thread.
  REQUIRE(h.stop() == 0);
  h.start();
  from_guest(h, "!then say the guest resumed it", thread);
  REQUIRE(h.wait_for_text(thread, "the guest resumed it", 90s));
  CHECK(h.sessions_of(thread).size() == 2);

  h.post("!deny <@" + std::string(kGuest) + ">", thread);
  REQUIRE(h.wait_for_text(thread, "is no longer a guest of this thread"));
  h.post("!deny <@" + std::string(kGuest) + ">", thread);
  REQUIRE(h.wait_for_text(thread, "is not a guest of this thread"));
  CHECK(h.threads_db()->find_thread(thread).value()->guests.empty());
  const auto after = from_guest(h, "say still here?", thread);
  REQUIRE(h.wait_for_text(thread, "nor a guest of this thread", 60s, 2));
  const auto shown = h.count_text(thread, "kept for the guest");
  from_guest(h, "!cat notes.txt", thread);
  REQUIRE(h.wait_for_text(thread, "nor a guest of this thread", 60s, 3));
  CHECK(h.count_text(thread, "kept for the guest") == shown);
  CHECK(h.count_text(thread, "still here?") == 0);
  const auto refused = h.turn(after);
  CHECK((!refused || !refused->started_at.has_value()));
}

TEST_CASE("!then waits for the running turn, and starts at once when none runs", "[e2e]") {
  E2eHarness h;
  h.start();
  const auto thread = h.post("then: say ready");
  REQUIRE(h.wait_for_text(thread, "done in"));

  const auto running = h.post("sleep 4000", thread);
  REQUIRE(eventually([&] {
    const auto t = h.turn(running);
    return t && t->started_at.has_value();
  }));
  const auto next = h.post("!then say after the sleep", thread);
  REQUIRE(h.wait_for_text(thread, "after the sleep", 60s));
  const auto first = h.turn(running);
  const auto second = h.turn(next);
  REQUIRE(first);
  REQUIRE(second);
  REQUIRE(first->ended_at.has_value());
  REQUIRE(second->started_at.has_value());
  CHECK(first->outcome == TurnOutcome::completed);
  CHECK(*second->started_at >= *first->ended_at);

  const auto idle = h.post("!then say right away", thread);
  REQUIRE(h.wait_for_text(thread, "right away"));
  CHECK(h.turn(idle)->outcome == TurnOutcome::completed);
  // The prompt reached the agent without the command word.
  CHECK(h.count_text(thread, "!then") == 0);
}

TEST_CASE("!shutdown by an allowed account tells the channel, stops every session and exits 0",
          "[e2e]"
          "[key:shutdown.allowedUserIds]") {
  E2eHarness h;
  h.set("shutdown.allowedUserIds", boost::json::array{std::string(kOwner)});
  h.start();
  const auto channel = h.discord().options().channel_id;
  const auto one = h.post("one: say first session");
  const auto two = h.post("two: say second session");
  REQUIRE(h.wait_for_text(one, "done in"));
  REQUIRE(h.wait_for_text(two, "done in"));

  // An operator of sessions is not one of shutdown.allowedUserIds.
  h.post("!shutdown", {}, kOperator);
  REQUIRE(h.wait_for_text(channel, "only the accounts in shutdown.allowedUserIds"));
  h.post("!shutdown", {}, kGuest);
  REQUIRE(h.wait_for_text(channel, "!shutdown was refused", 60s, 2));
  CHECK_FALSE(h.daemon().wait_for(1s).has_value());

  h.post("!shutdown", one);
  const auto exit_code = h.wait_for_exit(60s);
  INFO(h.daemon_log());
  REQUIRE(exit_code == 0);
  CHECK(h.count_text(channel, "errand is shutting down, asked by <@" + std::string(kOwner)) == 1);
  CHECK(h.count_text(one, "the served channel has been told") == 1);
  for (const auto& thread : {one, two}) {
    INFO(thread);
    const auto sessions = h.sessions_of(thread);
    REQUIRE(sessions.size() == 1);
    CHECK(sessions[0].ended_at.has_value());
    CHECK(sessions[0].end_reason == "the daemon stopped");
    CHECK(h.count_text(thread, "errand is stopping") == 1);
  }
  CHECK(h.daemon_log().find("!shutdown from chat") != std::string::npos);
}

// What the page sends into a thread; the answer is 202, or 409 with the manager's refusal.
WebReply send_from_web(E2eHarness& h, const std::string& thread, const std::string& text) {
  return web_request(h.web_door(),
                     WebRequest::post("/api/sessions/" + thread + "/send", own_origin(h),
                                      json::serialize(json::object{{"text", text}})));
}

TEST_CASE(
    "from the web interface, which has no mentions, !allow takes an id and !shutdown is "
    "refused unless web-interface is listed",
    "[e2e][web]") {
  E2eHarness h(Backend::bailey, Front::web_only);
  h.start();
  const auto started = web_request(
      h.web_door(), WebRequest::post("/api/sessions", own_origin(h),
                                     R"({"prompt": "say ready", "project": "webguests"})"));
  INFO(started.body << started.problem);
  REQUIRE(started.status == 202);
  const std::string thread(json::parse(started.body).at("thread").as_string());
  REQUIRE(eventually([&] {
    const auto found = h.threads_db()->find_thread(thread);
    return found && *found;
  }));

  const auto allowed = send_from_web(h, thread, "!allow " + std::string(kGuest));
  CHECK(allowed.status == 202);
  REQUIRE(eventually([&] {
    return h.threads_db()->find_thread(thread).value()->guests ==
           std::vector<std::string>{std::string(kGuest)};
  }));
  const auto named = send_from_web(h, thread, "!allow bob");
  CHECK(named.status == 409);
  CHECK_THAT(named.body, ContainsSubstring("`bob` is not an account"));
  const auto again = send_from_web(h, thread, "!allow " + std::string(kGuest));
  CHECK(again.status == 409);
  CHECK_THAT(again.body, ContainsSubstring("a guest of this thread already"));
  const auto shutdown = send_from_web(h, thread, "!shutdown");
  CHECK(shutdown.status == 409);
  CHECK_THAT(shutdown.body, ContainsSubstring("shutdown.allowedUserIds"));
  CHECK_FALSE(h.daemon().wait_for(1s).has_value());
  const auto denied = send_from_web(h, thread, "!deny " + std::string(kGuest));
  CHECK(denied.status == 202);
  REQUIRE(eventually([&] { return h.threads_db()->find_thread(thread).value()->guests.empty(); }));
}

}  // namespace
}  // namespace errand::e2e
