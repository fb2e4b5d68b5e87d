// agent.fallback through the real daemon and broker: the fake provider's answer says the
// anthropic window is spent; the session running there is told once, and the next new session
// starts on the fallback provider, which the fake provider sees on its own route.

#include "tests/e2e/e2e_harness.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;

fakes::ScriptedAnswer spending(std::string text) {
  auto answer = fakes::ScriptedAnswer::answer(std::move(text));
  answer.window_spent = true;
  return answer;
}

std::string model_of(const fakes::RecordedRequest& request) {
  const auto body = boost::json::parse(request.body);
  const auto* model = body.as_object().if_contains("model");
  return model != nullptr && model->is_string() ? std::string(model->as_string()) : "";
}

TEST_CASE("a spent window sends the next new session to agent.fallback and tells the running one",
          "[e2e][sanitized][key:agent.fallback]") {
  E2eHarness h;
  const std::string backup_key = unique_secret("backup-key-e2e-");
  // The same fake provider, reached under another path, so its requests tell the routes apart.
  h.set("agent.providers.backup",
        boost::json::object{{"credentialName", "ANTHROPIC_API_KEY"},
                            {"credential", backup_key},
                            {"kind", "anthropic"},
                            {"baseUrl", h.provider().http_url() + "/backup"}});
  h.set("agent.fallback", boost::json::array{"backup/fake-backup-model"});
  h.start();

  // Two answers that each leave the window spent: the running session is told once.
  h.provider().push(spending("first answer"));
  h.provider().push(spending("second answer"));
  const auto first = h.post("spender: provider use the window\nprovider and once more");
  REQUIRE(h.wait_for_text(first, "done in"));
  REQUIRE(h.wait_for_text(first, "anthropic's usage window is spent until "));
  CHECK(h.count_text(first,
                     "(requests: 0 left); this session keeps its model, and its owner "
                     "may switch with `!model`") == 1);
  CHECK(h.count_text(first, "usage window is spent") == 1);
  {
    const auto asked = h.provider().requests();
    REQUIRE(asked.size() == 2);
    for (const auto& request : asked) CHECK(request.target == "/v1/messages");
  }

  const auto second = h.post("fallen: provider on the fallback");
  REQUIRE(h.wait_for_text(second, "done in"));
  INFO(h.bot_text(second));
  CHECK(h.count_text(second, "anthropic's usage window is spent until ") == 1);
  CHECK(h.count_text(second,
                     "(requests: 0 left), so this session starts on "
                     "backup/fake-backup-model") == 1);
  const auto asked = h.provider().requests();
  REQUIRE(asked.size() == 3);
  CHECK(asked[2].target == "/backup/v1/messages");
  CHECK(model_of(asked[2]) == "fake-backup-model");
  // The broker put the backup provider's own key on the call.
  CHECK(asked[2].header("x-api-key") == backup_key);
  CHECK(h.threads_db()->find_thread(second).value()->model == "backup/fake-backup-model");
  // The first session, on anthropic, was not told again by the backup's answer.
  CHECK(h.count_text(first, "usage window is spent") == 1);

  // A resume keeps the provider and model the thread started on.
  h.post("!stop", second);
  REQUIRE(h.wait_for_text(second, "the session stopped"));
  REQUIRE(eventually([&] {
    const auto s = h.sessions_of(second);
    return s.size() == 1 && s[0].ended_at.has_value();
  }));
  // The stopped session leaves the daemon's table just after threads.db records its end; a
  // message in that moment is refused with "send the message again", so it is sent again.
  std::size_t posted = 0;
  const bool answered_again = eventually([&] {
    if (h.count_text(second, "done in") >= 2) return true;
    if (h.count_text(second, "send the message again") == posted && posted < 5) {
      h.post("provider resumed on the fallback", second);
      ++posted;
    }
    return false;
  });
  INFO(h.bot_text(second));
  REQUIRE(answered_again);
  const auto resumed = h.provider().requests();
  REQUIRE(resumed.size() == 4);
  CHECK(resumed[3].target == "/backup/v1/messages");
  CHECK(model_of(resumed[3]) == "fake-backup-model");
  CHECK(h.bot_text(second).find("so this session starts on") ==
        h.bot_text(second).rfind("so this session starts on"));
  CHECK(h.bot_text(second).find("provider call failed") == npos);
}

}  // namespace
}  // namespace errand::e2e
