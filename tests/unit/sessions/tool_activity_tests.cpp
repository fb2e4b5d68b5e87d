// Tool activity on a real renderer writing to a recording transport: what the thread and the
// transcript get as the agent's tool calls start, change and finish.

#include "core/sessions/tool_activity.hpp"
#include "tests/unit/chat/render/renderer_harness.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using errand::agent::ToolCall;
using errand::agent::ToolCallUpdate;
using errand::agent::ToolContent;
using errand::chat::ThreadRenderer;
using errand::sessions::ToolActivity;
using errand::test::kConfiguredSecret;
using errand::test::kStandIn;
using errand::test::RendererHarness;
namespace json = boost::json;

namespace {

errand::chat::RenderSettings forwarding() {
  errand::chat::RenderSettings s;
  s.forward_tool_output = true;
  return s;
}

ToolContent diff_of(const std::string& path, std::optional<std::string> old_text,
                    const std::string& new_text) {
  ToolContent c;
  c.type = ToolContent::Type::diff;
  c.path = path;
  c.old_text = std::move(old_text);
  c.new_text = new_text;
  return c;
}

ToolContent text_of(const std::string& text) {
  ToolContent c;
  c.type = ToolContent::Type::text;
  c.text = text;
  return c;
}

struct ActivityHarness {
  ActivityHarness() : render(forwarding(), 2000, std::chrono::milliseconds(1)) {
    activity.emplace(*render.renderer,
                     [this](const json::object& entry) { recorded.push_back(entry); });
  }
  std::vector<std::string> recorded_types() const {
    std::vector<std::string> types;
    for (const auto& e : recorded) types.emplace_back(e.at("type").as_string());
    return types;
  }

  RendererHarness render;
  std::vector<json::object> recorded;
  std::optional<ToolActivity> activity;
};

}  // namespace

TEST_CASE("a tool call is shown running, then finished with its exit code and output") {
  ActivityHarness h;
  h.render.run([&](ThreadRenderer&) -> boost::asio::awaitable<void> {
    ToolCall call;
    call.id = "t1";
    call.title = "make test";
    call.kind = "execute";
    h.activity->started(call);
    CHECK(h.activity->running() == 1);
    co_await h.render.pause(std::chrono::milliseconds(20));
    ToolCallUpdate done;
    done.id = "t1";
    done.status = "failed";
    done.raw_output = json::object{{"exitCode", 2}, {"output", "3 tests failed"}};
    CHECK(h.activity->updated(done));
    CHECK(h.activity->running() == 0);
  });
  REQUIRE(h.render.transport.posts.size() == 1);
  CHECK(h.render.transport.posts[0].message.text == "running `make test`");
  const auto shown = h.render.transport.thread_text().at(0);
  CHECK_THAT(shown, ContainsSubstring("`make test` failed: exit 2"));
  CHECK_THAT(shown, ContainsSubstring("3 tests failed"));
  REQUIRE(h.recorded.size() == 1);
  CHECK(h.recorded[0].at("type").as_string() == "tool");
  CHECK(h.recorded[0].at("status").as_string() == "failed");
  CHECK(h.recorded[0].at("exit_code").as_int64() == 2);
  CHECK(h.recorded[0].at("output").as_string() == "3 tests failed");
}

TEST_CASE("a call without a title is named by its kind, and its text content is its output") {
  ActivityHarness h;
  h.render.run([&](ThreadRenderer&) -> boost::asio::awaitable<void> {
    ToolCall call;
    call.id = "t1";
    call.kind = "search";
    call.status = "completed";
    call.content = {text_of("first hit"), text_of("second hit")};
    h.activity->started(call);
    co_return;
  });
  const auto shown = h.render.transport.everything_sent();
  CHECK_THAT(shown, ContainsSubstring("`search`"));
  REQUIRE(h.recorded.size() == 1);
  CHECK(h.recorded[0].at("title").as_string() == "search");
  CHECK(h.recorded[0].at("output").as_string() == "first hit\nsecond hit");
  CHECK(h.activity->running() == 0);
}

TEST_CASE("each file a call changes is shown once, relative to the workspace") {
  ActivityHarness h;
  h.render.run([&](ThreadRenderer&) -> boost::asio::awaitable<void> {
    ToolCall call;
    call.id = "t1";
    call.title = "edit";
    call.kind = "edit";
    call.content = {diff_of("/workspace/src/main.cpp", "int a;\n", "int b;\n")};
    h.activity->started(call);
    ToolCallUpdate more;
    more.id = "t1";
    // The agent sends the whole content again, with a second file; the first is not shown twice.
    more.content =
        std::vector<ToolContent>{diff_of("/workspace/src/main.cpp", "int a;\n", "int b;\n"),
                                 diff_of("/workspace/NEW.md", std::nullopt, "hello\n")};
    more.status = "completed";
    h.activity->updated(more);
    co_return;
  });
  CHECK(h.recorded_types() == std::vector<std::string>{"file_changed", "file_changed", "tool"});
  CHECK(h.recorded[0].at("path").as_string() == "src/main.cpp");
  CHECK_FALSE(h.recorded[0].at("created").as_bool());
  CHECK(h.recorded[1].at("path").as_string() == "NEW.md");
  CHECK(h.recorded[1].at("created").as_bool());
  const auto shown = h.render.transport.everything_sent();
  CHECK_THAT(shown, ContainsSubstring("src/main.cpp"));
  CHECK(shown.find("/workspace/src/main.cpp") == std::string::npos);
}

TEST_CASE("an update of a call never started is refused and shows nothing") {
  ActivityHarness h;
  h.render.run([&](ThreadRenderer&) -> boost::asio::awaitable<void> {
    ToolCallUpdate stray;
    stray.id = "nobody";
    stray.status = "completed";
    CHECK_FALSE(h.activity->updated(stray));
    co_return;
  });
  CHECK(h.render.transport.posts.empty());
  CHECK(h.recorded.empty());
}

TEST_CASE("tool activity hands the renderer raw text, and the door keeps secrets out") {
  ActivityHarness h;
  const std::string secret(kConfiguredSecret);
  h.render.run([&](ThreadRenderer&) -> boost::asio::awaitable<void> {
    ToolCall call;
    call.id = "t1";
    call.title = "curl -H 'Authorization: " + secret + "'";
    call.kind = "execute";
    h.activity->started(call);
    ToolCallUpdate done;
    done.id = "t1";
    done.status = "completed";
    done.raw_output = json::object{{"exitCode", 0}, {"output", "token " + kStandIn}};
    h.activity->updated(done);
    co_return;
  });
  // What tool activity passed on is raw (it scrubs nothing itself)...
  REQUIRE(h.recorded.size() == 1);
  CHECK_THAT(std::string(h.recorded[0].at("title").as_string()), ContainsSubstring(secret));
  // ...and the thread still shows none of it.
  const auto shown = h.render.transport.everything_sent();
  CHECK_THAT(shown, ContainsSubstring("[redacted]"));
  CHECK(shown.find(secret) == std::string::npos);
  CHECK(shown.find(kStandIn) == std::string::npos);
}
