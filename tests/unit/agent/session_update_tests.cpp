// Decoding session/update notifications and the ACP request bodies, without an agent.

#include "core/agent/acp_requests.hpp"
#include "core/agent/session_update.hpp"
#include "tests/support/result_printing.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <optional>
#include <string>

using namespace errand::agent;
namespace json = boost::json;

namespace {

errand::sdk::Result<SessionUpdate> decode(const char* text) {
  return decode_session_update(json::parse(text));
}

}  // namespace

TEST_CASE("tool call updates decode text, diff and terminal content") {
  auto update = decode(R"({"sessionId":"s1","update":{"sessionUpdate":"tool_call_update",
    "toolCallId":"t1","status":"completed","rawOutput":{"exitCode":0},"content":[
      {"type":"content","content":{"type":"text","text":"done"}},
      {"type":"diff","path":"/workspace/a.txt","oldText":null,"newText":"new"},
      {"type":"diff","path":"/workspace/b.txt","oldText":"old","newText":"newer"},
      {"type":"terminal","terminalId":"term-1"},
      {"type":"content","content":{"type":"image","data":"AA==","mimeType":"image/png"}}]}})");
  REQUIRE(update);
  CHECK(update->session_id == "s1");
  const auto& u = std::get<ToolCallUpdate>(update->update);
  CHECK(u.id == "t1");
  CHECK(u.status == "completed");
  CHECK_FALSE(u.title.has_value());
  REQUIRE(u.raw_output);
  REQUIRE(u.content);
  const auto& c = *u.content;
  REQUIRE(c.size() == 5);
  CHECK(c[0].type == ToolContent::Type::text);
  CHECK(c[0].text == "done");
  CHECK(c[1].type == ToolContent::Type::diff);
  CHECK_FALSE(c[1].old_text.has_value());
  CHECK(c[2].old_text == "old");
  CHECK(c[2].new_text == "newer");
  CHECK(c[3].type == ToolContent::Type::terminal);
  CHECK(c[3].terminal_id == "term-1");
  CHECK(c[4].type == ToolContent::Type::other);
  CHECK(c[4].raw.as_object().at("content").as_object().at("mimeType") == "image/png");
  CHECK(update_kind_name(update->update) == "tool_call_update");
}

TEST_CASE("a tool call defaults its kind and status and keeps its raw input") {
  auto update = decode(R"({"sessionId":"s","update":{"sessionUpdate":"tool_call",
    "toolCallId":"t2","title":"Reading","rawInput":{"path":"x"}}})");
  REQUIRE(update);
  const auto& call = std::get<ToolCall>(update->update);
  CHECK(call.kind == "other");
  CHECK(call.status == "pending");
  CHECK(call.raw_input.as_object().at("path") == "x");
}

TEST_CASE("usage updates carry cost when the agent knows it") {
  auto update = decode(R"({"sessionId":"s","update":{"sessionUpdate":"usage_update",
    "used":53000,"size":200000,"cost":{"amount":0.045,"currency":"USD"}}})");
  REQUIRE(update);
  const auto& usage = std::get<UsageUpdate>(update->update);
  CHECK(usage.used == 53000);
  REQUIRE(usage.cost_amount);
  CHECK(*usage.cost_amount > 0.044);
  CHECK(usage.cost_currency == "USD");
  CHECK_FALSE(
      decode(R"({"sessionId":"s","update":{"sessionUpdate":"usage_update","used":-1,"size":2}})"));
}

// Found by fuzz_acp_output: converting a double past 2^64 to a count was undefined.
TEST_CASE("a usage count past the uint64 range is refused, not converted") {
  CHECK_FALSE(decode(R"({"sessionId":"s","update":{"sessionUpdate":"usage_update",
    "used":53000,"size":20018446744073709551615000}})"));
  CHECK_FALSE(decode(R"({"sessionId":"s","update":{"sessionUpdate":"usage_update",
    "used":1e300,"size":200000}})"));
  const auto in_range = decode(R"({"sessionId":"s","update":{"sessionUpdate":"usage_update",
    "used":5.3e4,"size":2e5}})");
  REQUIRE(in_range);
  CHECK(std::get<UsageUpdate>(in_range->update).size == 200000);
}

TEST_CASE("a message chunk that is not text keeps its block") {
  auto update = decode(R"({"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk",
    "content":{"type":"image","data":"AA==","mimeType":"image/png"}}})");
  REQUIRE(update);
  const auto& chunk = std::get<AgentMessageChunk>(update->update);
  CHECK(chunk.content.type == "image");
  CHECK(chunk.content.text.empty());
  CHECK(chunk.content.raw.as_object().at("mimeType") == "image/png");
  auto broken = decode(R"({"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk",
    "content":{"type":"text"}}})");
  REQUIRE_FALSE(broken);
  CHECK(broken.error().message == "agent_message_chunk text content has no string \"text\"");
}

TEST_CASE("ACP request bodies and answers errand reads") {
  const auto init = initialize_params("errand", "0.1.0");
  CHECK(init.at("protocolVersion") == 1);
  const auto& caps = init.at("clientCapabilities").as_object();
  CHECK(caps.at("terminal") == false);
  CHECK(caps.at("fs").as_object().at("writeTextFile") == false);
  const auto fresh = session_params("", "/workspace");
  CHECK(fresh.at("cwd") == "/workspace");
  CHECK(fresh.at("mcpServers").as_array().empty());
  CHECK_FALSE(fresh.contains("sessionId"));
  CHECK(session_params("abc", "/workspace").at("sessionId") == "abc");

  const auto turn = parse_turn_end(json::parse(R"({"stopReason":"max_tokens"})"));
  REQUIRE(turn);
  CHECK(turn->stop_reason == StopReason::max_tokens);
  const auto odd = parse_turn_end(json::parse(R"({"stopReason":"tired"})"));
  REQUIRE(odd);
  CHECK(odd->stop_reason == StopReason::other);
  CHECK(odd->stop_reason_name == "tired");
  CHECK_FALSE(parse_turn_end(json::parse("{}")));

  const auto loaded = parse_opened_session(nullptr, "kept-id");
  REQUIRE(loaded);
  CHECK(loaded->session_id == "kept-id");
  CHECK_FALSE(parse_opened_session(json::parse("{}"), ""));

  const auto permission = parse_permission_request(
      json::parse(R"({"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[]})"));
  REQUIRE_FALSE(permission);
  CHECK(permission.error().message == "it offers no options to choose from");
}

// An agent whose protocolVersion only narrows to 1, caught by fuzz_acp_output's check of an
// accepted initialize answer.
TEST_CASE("initialize accepts protocol version 1 only, however wide the number sent") {
  const auto answer = [](std::string_view version) {
    return parse_initialize_result(
        json::parse(std::string(R"({"protocolVersion":)") + std::string(version) + "}"));
  };
  const auto one = answer("1");
  REQUIRE(one);
  CHECK(one->protocol_version == 1);
  // 2^32 + 1 narrowed to an int is 1: it must not pass for version 1.
  const auto wide = answer("4294967297");
  REQUIRE_FALSE(wide);
  CHECK(wide.error().message.find("version 4294967297 ") != std::string::npos);
  // Past the int64 range the number is unsigned; reading it must refuse, not throw.
  std::optional<decltype(wide)> huge;
  CHECK_NOTHROW(huge.emplace(answer("18446744073709551615")));
  REQUIRE_FALSE(*huge);
  CHECK((*huge).error().message.find("18446744073709551615") != std::string::npos);
  CHECK_FALSE(answer("-1"));
  CHECK_FALSE(answer("1.0"));
}
