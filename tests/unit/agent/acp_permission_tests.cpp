// session/request_permission under agent.permissions "allow" (answered at once) and "ask"
// (handed to the core, answered later through the responder).

#include "core/agent/permission_responder.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/agent/acp_harness.hpp"

#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch_test_macros.hpp>
#include <thread>

using namespace errand::agent;
using namespace errand::agent::test;
namespace asio = boost::asio;

namespace {

AcpClientOptions asking() {
  AcpClientOptions options;
  options.permissions = PermissionPolicy::ask;
  return options;
}

}  // namespace

TEST_CASE("under allow the client picks the agent's allow option at once") {
  errand::test::TempDir dir;
  bool asked = false;
  AgentUnderTest agent(
      dir.path(), {.on_permission = [&](PermissionRequest, PermissionResponder) { asked = true; }});
  const auto session = agent.open_session();
  const auto turn = agent.prompt(session, "ask ls -la");
  REQUIRE(turn);
  CHECK_FALSE(asked);
  CHECK(agent.message_text() == "permission: selected allow-once");
  CHECK(agent.log().contains("allowed \"run ls -la\" for the agent (allow-once)"));
}

TEST_CASE("under ask the core gets the question and answers it later, from another thread") {
  errand::test::TempDir dir;
  std::optional<PermissionRequest> request;
  PermissionResponder responder;
  AgentUnderTest agent(
      dir.path(),
      {.client = asking(), .on_permission = [&](PermissionRequest r, PermissionResponder p) {
         request = std::move(r);
         responder = std::move(p);
       }});
  const auto session = agent.open_session();
  bool still_waiting_later = false;
  bool selected_from_thread = false;
  std::thread answerer;
  asio::co_spawn(
      agent.loop().strand(),
      [&]() -> asio::awaitable<void> {
        asio::steady_timer poll(co_await asio::this_coro::executor);
        while (!request) {
          poll.expires_after(std::chrono::milliseconds(10));
          co_await poll.async_wait(asio::use_awaitable);
        }
        poll.expires_after(std::chrono::milliseconds(300));
        co_await poll.async_wait(asio::use_awaitable);
        still_waiting_later = agent.message_text().find("permission:") == std::string::npos;
        CHECK_FALSE(responder.select("no-such-option"));
        answerer = std::thread([&selected_from_thread, r = responder] {
          selected_from_thread = r.select("reject-once");
        });
      },
      asio::detached);
  const auto turn = agent.prompt(session, "ask rm -rf /tmp/not-really");
  if (answerer.joinable()) answerer.join();
  REQUIRE(turn);
  CHECK(still_waiting_later);
  CHECK(selected_from_thread);
  REQUIRE(request);
  CHECK(request->session_id == session);
  CHECK(request->title == "run rm -rf /tmp/not-really");
  CHECK(request->kind == "execute");
  CHECK(request->raw_input.as_object().at("command") == "rm -rf /tmp/not-really");
  REQUIRE(request->options.size() == 3);
  CHECK(request->options[0].kind == "allow_once");
  CHECK(request->options[2].id == "reject-once");
  CHECK(agent.message_text() == "permission: selected reject-once");
  CHECK(responder.answered());
  CHECK_FALSE(responder.cancel());
}

TEST_CASE("under ask a question nobody keeps is answered cancelled") {
  errand::test::TempDir dir;
  int asked = 0;
  AgentUnderTest agent(dir.path(),
                       {.client = asking(),
                        .on_permission = [&](PermissionRequest, PermissionResponder) { ++asked; }});
  const auto session = agent.open_session();
  const auto turn = agent.prompt(session, "ask true");
  REQUIRE(turn);
  CHECK(asked == 1);
  CHECK(agent.message_text() == "permission: cancelled");
}

TEST_CASE("session/cancel answers an open question cancelled and ends the turn") {
  errand::test::TempDir dir;
  PermissionResponder responder;
  bool asked = false;
  AgentUnderTest agent(dir.path(), {.client = asking(),
                                    .on_permission = [&](PermissionRequest, PermissionResponder p) {
                                      asked = true;
                                      responder = std::move(p);
                                    }});
  const auto session = agent.open_session();
  asio::co_spawn(
      agent.loop().strand(),
      [&]() -> asio::awaitable<void> {
        asio::steady_timer poll(co_await asio::this_coro::executor);
        while (!asked) {
          poll.expires_after(std::chrono::milliseconds(10));
          co_await poll.async_wait(asio::use_awaitable);
        }
        agent.client().cancel(session);
      },
      asio::detached);
  const auto turn = agent.prompt(session, "ask make deploy\nsay not reached");
  REQUIRE(turn);
  CHECK(turn->stop_reason == StopReason::cancelled);
  CHECK(agent.message_text() == "permission: cancelled");
  CHECK(responder.answered());
  CHECK_FALSE(responder.select("allow-once"));
}

TEST_CASE("the allow policy's choice among the offered options") {
  const std::vector<PermissionOption> reversed{{"always", "Always", "allow_always"},
                                               {"no", "No", "reject_once"},
                                               {"once", "Once", "allow_once"}};
  CHECK(choose_allow_option(reversed) == "once");
  const std::vector<PermissionOption> always_only{{"no", "No", "reject_once"},
                                                  {"always", "Always", "allow_always"}};
  CHECK(choose_allow_option(always_only) == "always");
  const std::vector<PermissionOption> untyped{{"allow", "Allow", ""}, {"deny", "Deny", ""}};
  CHECK(choose_allow_option(untyped) == "allow");
  const std::vector<PermissionOption> rejecting{{"no", "No", "reject_once"},
                                                {"never", "Never", "reject_always"}};
  CHECK_FALSE(choose_allow_option(rejecting).has_value());
}
