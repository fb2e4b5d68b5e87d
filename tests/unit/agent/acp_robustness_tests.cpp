// What the ACP client does when the agent misbehaves: lines past the bound, lines that are not
// JSON-RPC, requests errand does not serve, and an agent that dies mid-turn.

#include "tests/support/temp_dir.hpp"
#include "tests/unit/agent/acp_harness.hpp"

#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch_test_macros.hpp>
#include <csignal>

using namespace errand::agent;
using namespace errand::agent::test;
namespace asio = boost::asio;

TEST_CASE("a line longer than the bound ends the session and says why") {
  errand::test::TempDir dir;
  AcpClientOptions options;
  options.max_line_bytes = 4096;
  AgentUnderTest agent(dir.path(), {.client = options});
  const auto session = agent.open_session();
  const auto turn = agent.prompt(session, "say before\nbigline 10000\nsay after");
  REQUIRE_FALSE(turn);
  CHECK(turn.error().kind == errand::sdk::Error::Kind::unavailable);
  CHECK(turn.error().message.find("a line longer than 4096 bytes") != std::string::npos);
  CHECK(agent.message_text() == "before");
  REQUIRE(agent.closed_reason);
  CHECK(*agent.closed_reason == turn.error().message);
  CHECK(agent.client().closed());

  const auto after = agent.loop().run(agent.client().new_session());
  REQUIRE_FALSE(after);
  CHECK(after.error().message == turn.error().message);
}

TEST_CASE("lines that are not JSON-RPC are logged and skipped, and the session goes on") {
  errand::test::TempDir dir;
  AgentUnderTest agent(dir.path());
  const auto session = agent.open_session();
  const auto turn = agent.prompt(
      session,
      "raw this is not json\n"
      "raw [1, 2, 3]\n"
      "raw {\"jsonrpc\": \"1.0\", \"method\": \"x\"}\n"
      "raw {\"jsonrpc\": \"2.0\", \"method\": 7}\n"
      "raw {\"jsonrpc\": \"2.0\", \"method\": \"session/update\", \"params\": \"text\"}\n"
      "raw {\"jsonrpc\": \"2.0\", \"id\": 999, \"result\": {}}\n"
      "raw {\"jsonrpc\": \"2.0\", \"id\": 5, \"result\": {}, \"error\": {}}\n"
      "raw {\"jsonrpc\": \"2.0\", \"method\": \"session/update\", \"params\": {\"sessionId\": "
      "\"s\"}}\n"
      "raw {\"jsonrpc\": \"2.0\", \"method\": \"session/update\", \"params\": {\"sessionId\": "
      "\"s\", "
      "\"update\": {\"sessionUpdate\": \"tool_call\"}}}\n"
      "say still here");
  REQUIRE(turn);
  CHECK(turn->stop_reason == StopReason::end_turn);
  CHECK(agent.message_text() == "still here");
  CHECK_FALSE(agent.closed_reason);
  const auto& log = agent.log();
  CHECK(log.contains("skipped a line from the agent because it is not JSON"));
  CHECK(log.contains("because it is an array where a JSON-RPC message is an object"));
  CHECK(log.contains("lacks \"jsonrpc\": \"2.0\""));
  CHECK(log.contains("its \"method\" is a number, not a string"));
  CHECK(log.contains("its \"params\" is a string, not an object or an array"));
  CHECK(log.contains("the agent answered id 999, which no request is waiting for"));
  CHECK(log.contains("exactly one of \"result\" and \"error\""));
  CHECK(log.contains("session/update has no \"update\" object"));
  CHECK(log.contains("tool_call has no string \"toolCallId\""));
}

TEST_CASE("an agent that dies mid-turn fails the prompt with its dying words") {
  errand::test::TempDir dir;
  AgentUnderTest agent(dir.path());
  const auto session = agent.open_session();
  const auto turn =
      agent.prompt(session, "say working\nstderr panic: the fake agent fell over\nexit 3");
  REQUIRE_FALSE(turn);
  CHECK(turn.error().kind == errand::sdk::Error::Kind::unavailable);
  CHECK(turn.error().message.find("the agent closed its output") != std::string::npos);
  CHECK(turn.error().message.find("its last words on stderr: panic: the fake agent fell over") !=
        std::string::npos);
  CHECK(agent.client().dying_words() == "panic: the fake agent fell over");
  REQUIRE(agent.closed_reason);
  CHECK(*agent.closed_reason == turn.error().message);
  const auto status = agent.loop().run(agent.process().wait(agent.loop().strand()));
  CHECK(status == 3);
}

TEST_CASE("an agent killed while it works fails the prompt, even with nothing on stderr") {
  errand::test::TempDir dir;
  AgentUnderTest agent(dir.path());
  const auto session = agent.open_session();
  asio::co_spawn(
      agent.loop().strand(),
      [&]() -> asio::awaitable<void> {
        asio::steady_timer poll(co_await asio::this_coro::executor);
        while (agent.message_text() != "sleeping") {
          poll.expires_after(std::chrono::milliseconds(10));
          co_await poll.async_wait(asio::use_awaitable);
        }
        ::kill(agent.process().pid(), SIGKILL);
      },
      asio::detached);
  const auto turn = agent.prompt(session, "say sleeping\nsleep 30000");
  REQUIRE_FALSE(turn);
  CHECK(turn.error().message.find("the agent closed its output") != std::string::npos);
  CHECK(turn.error().message.find("it wrote nothing on stderr") != std::string::npos);
}

TEST_CASE("a request errand does not serve is answered method not found") {
  errand::test::TempDir dir;
  AgentUnderTest agent(dir.path());
  const auto session = agent.open_session();
  const auto turn = agent.prompt(session, "request fs/read_text_file\nrequest terminal/create");
  REQUIRE(turn);
  CHECK(agent.message_text().find("request fs/read_text_file: error -32601 errand does not offer "
                                  "fs/read_text_file") != std::string::npos);
  CHECK(agent.message_text().find("request terminal/create: error -32601") != std::string::npos);
  CHECK(agent.log().contains("the agent asked for fs/read_text_file, which errand does not offer"));
}

TEST_CASE("the stderr tail keeps the end of what the agent wrote") {
  errand::test::TempDir dir;
  AcpClientOptions options;
  options.dying_words_bytes = 64;
  AgentUnderTest agent(dir.path(), {.client = options});
  const auto session = agent.open_session();
  std::string script;
  for (int i = 0; i < 20; ++i) script += "stderr line number " + std::to_string(i) + "\n";
  script += "exit 1";
  const auto turn = agent.prompt(session, script);
  REQUIRE_FALSE(turn);
  const auto words = agent.client().dying_words();
  CHECK(words.size() <= 64);
  CHECK(words.find("line number 19") != std::string::npos);
  CHECK(words.find("line number 0\n") == std::string::npos);
}
