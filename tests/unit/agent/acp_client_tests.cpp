// The ACP client against the real fake agent: set-up, prompts and what they stream, cancel,
// set_config_option, session/load, extension calls.

#include "core/agent/acp_requests.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/agent/acp_harness.hpp"

#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch_test_macros.hpp>
#include <fstream>

using namespace errand::agent;
using namespace errand::agent::test;
namespace asio = boost::asio;

namespace {

template <class T>
std::vector<const T*> all_of(const std::vector<SessionUpdate>& updates) {
  std::vector<const T*> out;
  for (const auto& u : updates)
    if (const auto* v = std::get_if<T>(&u.update)) out.push_back(v);
  return out;
}

const ToolCallUpdate* last_update_of(const std::vector<SessionUpdate>& updates,
                                     const std::string& id) {
  const ToolCallUpdate* last = nullptr;
  for (const auto* u : all_of<ToolCallUpdate>(updates))
    if (u->id == id) last = u;
  return last;
}

}  // namespace

TEST_CASE("initialize, session/new and a prompt stream say, think, run, write, plan and usage") {
  errand::test::TempDir dir;
  AgentUnderTest agent(dir.path());
  auto hello = agent.loop().run(agent.client().initialize());
  REQUIRE(hello);
  CHECK(hello->protocol_version == 1);
  CHECK(hello->load_session);
  CHECK(hello->image_prompts);
  CHECK(hello->name == "fake-acp-agent");
  auto session = agent.loop().run(agent.client().new_session());
  REQUIRE(session);
  CHECK_FALSE(session->session_id.empty());
  REQUIRE(session->config_options.size() == 1);
  CHECK(session->config_options[0].as_object().at("id") == "model");

  const auto turn = agent.prompt(session->session_id,
                                 "say hello from the script\n"
                                 "think weighing options\n"
                                 "run echo out-line; echo err-line >&2; exit 3\n"
                                 "write notes.txt first\\nsecond\n"
                                 "plan read the code|change it\n"
                                 "usage 1234 200000\n"
                                 "update mystery_kind with details");
  REQUIRE(turn);
  CHECK(turn->stop_reason == StopReason::end_turn);
  CHECK(turn->stop_reason_name == "end_turn");
  for (const auto& u : agent.updates) CHECK(u.session_id == session->session_id);

  CHECK(agent.message_text() == "hello from the script");
  CHECK(agent.message_chunks() == 3);
  CHECK(agent.thought_text() == "weighing options");

  const auto calls = all_of<ToolCall>(agent.updates);
  REQUIRE(calls.size() == 2);
  CHECK(calls[0]->kind == "execute");
  CHECK(calls[0]->status == "pending");
  CHECK(calls[0]->raw_input.as_object().at("command") ==
        "echo out-line; echo err-line >&2; exit 3");
  const auto* ran = last_update_of(agent.updates, calls[0]->id);
  REQUIRE(ran != nullptr);
  CHECK(ran->status == "failed");
  REQUIRE(ran->content);
  REQUIRE(ran->content->size() == 2);
  CHECK((*ran->content)[0].type == ToolContent::Type::text);
  CHECK((*ran->content)[0].text.find("out-line") != std::string::npos);
  CHECK((*ran->content)[0].text.find("err-line") != std::string::npos);
  CHECK((*ran->content)[1].text == "exit status 3");
  REQUIRE(ran->raw_output);
  CHECK(ran->raw_output->as_object().at("exitCode") == 3);

  CHECK(calls[1]->kind == "edit");
  const auto* wrote = last_update_of(agent.updates, calls[1]->id);
  REQUIRE(wrote != nullptr);
  CHECK(wrote->status == "completed");
  REQUIRE(wrote->content);
  REQUIRE(wrote->content->size() == 1);
  const auto& diff = (*wrote->content)[0];
  CHECK(diff.type == ToolContent::Type::diff);
  CHECK(diff.path == (dir.path() / "workspace" / "notes.txt").string());
  CHECK_FALSE(diff.old_text.has_value());
  CHECK(diff.new_text == "first\nsecond");
  CHECK(errand::test::read_file(dir.path() / "workspace" / "notes.txt") == "first\nsecond");

  const auto plans = all_of<Plan>(agent.updates);
  REQUIRE(plans.size() == 1);
  REQUIRE(plans[0]->entries.size() == 2);
  CHECK(plans[0]->entries[1].content == "change it");
  CHECK(plans[0]->entries[1].status == "pending");
  const auto usage = all_of<UsageUpdate>(agent.updates);
  REQUIRE(usage.size() == 1);
  CHECK(usage[0]->used == 1234);
  CHECK(usage[0]->size == 200000);
  const auto others = all_of<OtherUpdate>(agent.updates);
  REQUIRE(others.size() == 1);
  CHECK(others[0]->kind == "mystery_kind");
  CHECK(others[0]->raw.at("note") == "with details");
  CHECK(agent.log().contains("session/update of kind mystery_kind passed on as is"));

  SECTION("a second write of the same file reports what it replaced") {
    agent.updates.clear();
    REQUIRE(agent.prompt(session->session_id, "write notes.txt third"));
    const auto second = all_of<ToolCallUpdate>(agent.updates);
    REQUIRE_FALSE(second.empty());
    REQUIRE(second.back()->content);
    const auto& replaced = (*second.back()->content)[0];
    REQUIRE(replaced.old_text.has_value());
    CHECK(*replaced.old_text == "first\nsecond");
    CHECK(replaced.new_text == "third");
  }
}

TEST_CASE("a prompt carries an image block to an agent that takes images") {
  errand::test::TempDir dir;
  AgentUnderTest agent(dir.path());
  const auto session = agent.open_session();
  auto turn = agent.loop().run(agent.client().prompt(
      session,
      {PromptBlock::of_text("say got it"), PromptBlock::of_image("aGVsbG8=", "image/png")}));
  REQUIRE(turn);
  CHECK(agent.message_text() == "received an image (image/png, 8 bytes of base64)got it");
}

TEST_CASE("a resource link is serialised as ACP writes it, size and type only when known") {
  const auto params = errand::agent::prompt_params(
      "s1", {PromptBlock::of_resource_link("file:///state/inbox/1/a.csv", "a.csv", "text/csv", 12),
             PromptBlock::of_resource_link("file:///state/inbox/1/b", "b", "", std::nullopt)});
  const auto& prompt = params.at("prompt").as_array();
  REQUIRE(prompt.size() == 2);
  CHECK(prompt[0].as_object() == boost::json::object{{"type", "resource_link"},
                                                     {"uri", "file:///state/inbox/1/a.csv"},
                                                     {"name", "a.csv"},
                                                     {"mimeType", "text/csv"},
                                                     {"size", 12}});
  CHECK(prompt[1].as_object() == boost::json::object{{"type", "resource_link"},
                                                     {"uri", "file:///state/inbox/1/b"},
                                                     {"name", "b"}});
}

TEST_CASE("the fake agent runs the last text block, shows the others and reads linked files") {
  errand::test::TempDir dir;
  const auto linked = dir.path() / "linked file.txt";
  std::ofstream(linked) << "contents of the link";
  AgentUnderTest agent(dir.path());
  const auto session = agent.open_session();
  const std::string uri = "file://" + (dir.path() / "linked%20file.txt").string();
  auto turn = agent.loop().run(agent.client().prompt(
      session,
      {PromptBlock::of_text("say context is not run"), PromptBlock::of_text("blocks\nlinks"),
       PromptBlock::of_resource_link(uri, "linked file.txt", "text/plain", 20)}));
  REQUIRE(turn);
  const auto said = agent.message_text();
  CHECK(said.find("text: say context is not run\n") != std::string::npos);
  // Said once, by `blocks`: the context block was not run as a script.
  const auto first = said.find("context is not run");
  CHECK(said.find("context is not run", first + 1) == std::string::npos);
  CHECK(said.find("resource_link " + uri + " name=linked file.txt mimeType=text/plain size=20") !=
        std::string::npos);
  CHECK(said.find(uri + ":\ncontents of the link") != std::string::npos);
}

TEST_CASE("session/cancel ends a running prompt with stopReason cancelled") {
  errand::test::TempDir dir;
  AgentUnderTest agent(dir.path());
  const auto session = agent.open_session();
  auto& client = agent.client();

  // Cancels once the command is reported running, as the core does on !stop.
  asio::co_spawn(
      agent.loop().strand(),
      [&]() -> asio::awaitable<void> {
        asio::steady_timer poll(co_await asio::this_coro::executor);
        while (all_of<ToolCall>(agent.updates).empty()) {
          poll.expires_after(std::chrono::milliseconds(10));
          co_await poll.async_wait(asio::use_awaitable);
        }
        client.cancel(session);
      },
      asio::detached);
  const auto started = std::chrono::steady_clock::now();
  const auto turn = agent.prompt(session, "say before\nrun sleep 30\nsay after");
  const auto took = std::chrono::steady_clock::now() - started;
  REQUIRE(turn);
  CHECK(turn->stop_reason == StopReason::cancelled);
  CHECK(took < std::chrono::seconds(10));
  CHECK(agent.message_text() == "before");
  const auto calls = all_of<ToolCall>(agent.updates);
  REQUIRE(calls.size() == 1);
  const auto* ended = last_update_of(agent.updates, calls[0]->id);
  REQUIRE(ended != nullptr);
  CHECK(ended->status == "failed");

  SECTION("the session takes the next prompt normally") {
    agent.updates.clear();
    const auto next = agent.prompt(session, "say again");
    REQUIRE(next);
    CHECK(next->stop_reason == StopReason::end_turn);
    CHECK(agent.message_text() == "again");
  }
}

TEST_CASE("session/set_config_option changes the model and returns the options") {
  errand::test::TempDir dir;
  AgentUnderTest agent(dir.path());
  const auto session = agent.open_session();
  auto options =
      agent.loop().run(agent.client().set_config_option(session, "model", "fake-model-small"));
  REQUIRE(options);
  REQUIRE(options->size() == 1);
  CHECK((*options)[0].as_object().at("currentValue") == "fake-model-small");

  auto refused = agent.loop().run(agent.client().set_config_option(session, "colour", "blue"));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().kind == errand::sdk::Error::Kind::failed);
  CHECK(refused.error().message.find("session/set_config_option with error -32602") !=
        std::string::npos);
}

TEST_CASE("session/load in a new agent process replays the stored history and resumes") {
  errand::test::TempDir dir;
  std::string session;
  {
    AgentUnderTest first(dir.path());
    session = first.open_session();
    REQUIRE(first.prompt(session, "say remembered words"));
  }
  AgentUnderTest second(dir.path());
  auto hello = second.loop().run(second.client().initialize());
  REQUIRE(hello);
  auto loaded = second.loop().run(second.client().load_session(session));
  REQUIRE(loaded);
  CHECK(loaded->session_id == session);
  CHECK_FALSE(loaded->config_options.empty());
  const auto asked = all_of<UserMessageChunk>(second.updates);
  REQUIRE(asked.size() == 1);
  CHECK(asked[0]->content.text == "say remembered words");
  CHECK(second.message_text() == "remembered words");

  second.updates.clear();
  const auto turn = second.prompt(session, "say resumed");
  REQUIRE(turn);
  CHECK(second.message_text() == "resumed");

  SECTION("a session the agent never stored is an error from the agent") {
    auto missing = second.loop().run(second.client().load_session("fake-never-made"));
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message.find("no stored session fake-never-made") != std::string::npos);
  }
}

TEST_CASE("session/load is refused without asking an agent that did not offer loadSession") {
  errand::test::TempDir dir;
  AgentUnderTest agent(dir.path(), {.environment = {{"FAKE_AGENT_LOAD_SESSION", "0"}}});
  auto hello = agent.loop().run(agent.client().initialize());
  REQUIRE(hello);
  CHECK_FALSE(hello->load_session);
  auto loaded = agent.loop().run(agent.client().load_session("fake-anything"));
  REQUIRE_FALSE(loaded);
  CHECK(loaded.error().kind == errand::sdk::Error::Kind::refused);
  CHECK(loaded.error().message.find("did not offer loadSession") != std::string::npos);
}

TEST_CASE("an agent speaking another ACP version is refused at initialize") {
  errand::test::TempDir dir;
  AgentUnderTest agent(dir.path(), {.environment = {{"FAKE_AGENT_PROTOCOL_VERSION", "2"}}});
  auto hello = agent.loop().run(agent.client().initialize());
  REQUIRE_FALSE(hello);
  CHECK(hello.error().kind == errand::sdk::Error::Kind::refused);
  CHECK(hello.error().message.find("protocol version 2") != std::string::npos);
}

TEST_CASE("extension calls reach the agent and need an underscore") {
  errand::test::TempDir dir;
  AgentUnderTest agent(dir.path(), {.environment = {{"FAKE_AGENT_PROVIDERS", "anthropic,zai"}}});
  REQUIRE(agent.loop().run(agent.client().initialize()));
  auto models = agent.loop().run(agent.client().call_extension("_kage/models/list", {}));
  REQUIRE(models);
  const auto& providers = models->as_object().at("providers").as_array();
  REQUIRE(providers.size() == 2);
  CHECK(providers[1].as_object().at("id") == "zai");

  auto unknown = agent.loop().run(agent.client().call_extension("_nobody/knows", {}));
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().kind == errand::sdk::Error::Kind::not_found);

  auto not_extension = agent.loop().run(agent.client().call_extension("session/new", {}));
  REQUIRE_FALSE(not_extension);
  CHECK(not_extension.error().kind == errand::sdk::Error::Kind::refused);
}
