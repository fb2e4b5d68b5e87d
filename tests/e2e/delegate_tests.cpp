// agent.delegate through the real daemon: the scripted agent runs the real delegate command in
// a real bailey sandbox, the real broker puts the question to the fake provider, and the thread
// and !status show what came back, what it cost and what was kept out of the context.

#include "tests/e2e/e2e_harness.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <fstream>
#include <sstream>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;

// The numbers 1 to 60000, a line each: 348,894 bytes, the kind of log an agent should not read
// into its own context.
std::string numbered_lines() {
  std::string text;
  for (int i = 1; i <= 60000; ++i) text += std::to_string(i) + "\n";
  return text;
}

// The provider calls made for the delegate model, oldest first.
std::vector<fakes::RecordedRequest> delegate_requests(E2eHarness& h, std::string_view model) {
  std::vector<fakes::RecordedRequest> found;
  for (auto& request : h.provider().requests()) {
    boost::system::error_code ec;
    const auto body = boost::json::parse(request.body, ec);
    if (ec || !body.is_object()) continue;
    const auto* named = body.as_object().if_contains("model");
    if (named != nullptr && named->is_string() && named->as_string() == model)
      found.push_back(std::move(request));
  }
  return found;
}

void configure_delegate(E2eHarness& h, std::int64_t deadline_ms) {
  h.set("agent.delegate",
        boost::json::object{{"model", "fake-flash"}, {"deadlineMs", deadline_ms}});
}

TEST_CASE("the delegate command asks the delegate model about one file and nothing else",
          "[e2e][key:agent.delegate.model]") {
  E2eHarness h;
  configure_delegate(h, 60000);
  h.start();
  h.provider().push(fakes::ScriptedAnswer::answer("The log counts from 1 to 60000."));
  const std::string question = "What range of numbers does this log cover?";
  const auto thread = h.post(
      "run seq 1 60000 > big.log && wc -c big.log\n"
      "run delegate --file big.log '" +
      question +
      "'; echo delegate-exit=$?\n"
      "say asked");
  REQUIRE(h.wait_for_text(thread, "done in"));
  CHECK(h.bot_text(thread).find("The log counts from 1 to 60000.") != npos);
  CHECK(h.bot_text(thread).find("delegate-exit=0") != npos);

  // One call to the delegate model, holding exactly the file and the question: no tools, no
  // system prompt, no conversation.
  const auto calls = delegate_requests(h, "fake-flash");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].target.ends_with("/v1/messages"));
  CHECK(calls[0].header("x-api-key") == h.provider_key());
  const auto body = boost::json::parse(calls[0].body).as_object();
  CHECK(!body.contains("tools"));
  CHECK(!body.contains("system"));
  const auto& messages = body.at("messages").as_array();
  REQUIRE(messages.size() == 1);
  const auto& content = messages[0].as_object().at("content").as_array();
  REQUIRE(content.size() == 2);
  CHECK(content[0].as_object().at("text").as_string() == numbered_lines());
  CHECK(content[1].as_object().at("text").as_string() == question);

  // !status: the call, its tokens (the fake reports 12 in and 7 out) and what was kept out.
  h.post("!status", thread);
  REQUIRE(h.wait_for_text(thread, "delegate, this session: 1 call"));
  const auto status = h.bot_text(thread);
  CHECK(status.find("12 tokens in and 7 out") != npos);
  CHECK(status.find("348894 characters (about 87224 tokens) kept out of the context") != npos);
}

TEST_CASE("a turn's ninth delegate call is refused, and a stalled answer is cut at the deadline",
          "[e2e][key:agent.delegate.perTurn][key:agent.delegate.deadlineMs]") {
  E2eHarness h;
  configure_delegate(h, 3000);
  h.start();
  for (int i = 1; i <= 8; ++i)
    h.provider().push(fakes::ScriptedAnswer::answer("answer " + std::to_string(i)));
  const auto thread = h.post(
      "run printf 'one line\\n' > small.txt\n"
      "run for i in 1 2 3 4 5 6 7 8 9; do delegate --file small.txt \"question $i\" "
      "2>&1; echo \" call-$i-exit=$?\"; done\n"
      "say counted");
  REQUIRE(h.wait_for_text(thread, "done in"));
  const auto text = h.bot_text(thread);
  CHECK(text.find("answer 8") != npos);
  CHECK(text.find("call-8-exit=0") != npos);
  CHECK(text.find("call-9-exit=1") != npos);
  CHECK(text.find("already made its 8 delegate calls") != npos);
  // The refused ninth call never reached the provider.
  CHECK(delegate_requests(h, "fake-flash").size() == 8);

  // A new turn has a new allowance; this answer stalls past the 3 s deadline.
  h.provider().push(fakes::ScriptedAnswer::stalled_for(120s, "too late"));
  const auto started = std::chrono::steady_clock::now();
  h.post("run delegate --file small.txt 'still there?' 2>&1; echo \" stalled-exit=$?\"", thread);
  REQUIRE(h.wait_for_text(thread, "stalled-exit=1"));
  CHECK(std::chrono::steady_clock::now() - started < 60s);
  CHECK(h.bot_text(thread).find("3000 ms") != npos);
  h.post("!status", thread);
  REQUIRE(h.wait_for_text(thread, "delegate, this turn: 1 of 8 calls (0 answered)"));
}

TEST_CASE("without agent.delegate the sandbox has no delegate command", "[e2e]") {
  E2eHarness h;
  h.start();
  const auto thread = h.post("run command -v delegate; echo lookup-exit=$?");
  REQUIRE(h.wait_for_text(thread, "lookup-exit=1"));
}

}  // namespace
}  // namespace errand::e2e
