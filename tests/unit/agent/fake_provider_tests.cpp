// The fake provider speaks both dialects as a real client reads them: Beast over plain HTTP and
// over TLS verified against the test CA.

#include "tests/fakes/provider/fake_provider.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <thread>

using namespace errand::fakes;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using asio::ip::tcp;

namespace {

struct Answer {
  int status = 0;
  std::string body;
  std::string retry_after;
  bool complete = true;             // false when the connection dropped before the body ended
  boost::system::error_code error;  // how reading the answer failed, when it did
};

template <class Stream>
Answer exchange(Stream& stream, const std::string& target,
                std::vector<std::pair<std::string, std::string>> headers, const std::string& body) {
  http::request<http::string_body> request{http::verb::post, target, 11};
  request.set(http::field::host, "127.0.0.1");
  request.set(http::field::content_type, "application/json");
  for (const auto& [name, value] : headers) request.set(name, value);
  request.body() = body;
  request.prepare_payload();
  http::write(stream, request);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(16 * 1024 * 1024);
  boost::system::error_code ec;
  http::read(stream, buffer, parser, ec);
  Answer answer;
  answer.complete = !ec;
  answer.error = ec;
  answer.status = static_cast<int>(parser.get().result_int());
  answer.body = parser.get().body();
  answer.retry_after = std::string(parser.get()["retry-after"]);
  return answer;
}

Answer post(const FakeProvider& provider, const std::string& target,
            std::vector<std::pair<std::string, std::string>> headers, const std::string& body) {
  asio::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), provider.http_port()));
  return exchange(socket, target, std::move(headers), body);
}

Answer post_tls(const FakeProvider& provider, const std::string& ca_pem, const std::string& target,
                std::vector<std::pair<std::string, std::string>> headers, const std::string& body) {
  asio::io_context io;
  asio::ssl::context tls(asio::ssl::context::tls_client);
  tls.add_certificate_authority(asio::buffer(ca_pem));
  tls.set_verify_mode(asio::ssl::verify_peer);
  asio::ssl::stream<tcp::socket> stream(io, tls);
  stream.set_verify_callback(asio::ssl::host_name_verification("127.0.0.1"));
  stream.next_layer().connect(
      tcp::endpoint(asio::ip::make_address("127.0.0.1"), provider.https_port()));
  stream.handshake(asio::ssl::stream_base::client);
  return exchange(stream, target, std::move(headers), body);
}

struct Event {
  std::string name;
  json::object data;
};

// Splits a text/event-stream body into its events; "[DONE]" becomes an event named "done".
std::vector<Event> events_of(const std::string& body) {
  std::vector<Event> events;
  std::size_t at = 0;
  while (at < body.size()) {
    auto end = body.find("\n\n", at);
    if (end == std::string::npos) end = body.size();
    const std::string block = body.substr(at, end - at);
    at = end + 2;
    Event event;
    std::size_t line_start = 0;
    while (line_start < block.size()) {
      auto line_end = block.find('\n', line_start);
      if (line_end == std::string::npos) line_end = block.size();
      const std::string line = block.substr(line_start, line_end - line_start);
      line_start = line_end + 1;
      if (line.rfind("event: ", 0) == 0) event.name = line.substr(7);
      if (line.rfind("data: ", 0) == 0) {
        const std::string data = line.substr(6);
        if (data == "[DONE]")
          event.name = "done";
        else
          event.data = json::parse(data).as_object();
      }
    }
    if (!event.name.empty() || !event.data.empty()) events.push_back(std::move(event));
  }
  return events;
}

const std::string anthropic_body = R"({"model":"claude-test","max_tokens":64,"stream":true,
  "messages":[{"role":"user","content":"hi"}]})";
const std::string openai_body = R"({"model":"gpt-test","stream":true,
  "stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]})";

}  // namespace

TEST_CASE("the Anthropic dialect streams message_start to message_stop over plain HTTP") {
  FakeProvider provider;
  provider.push(ScriptedAnswer::answer("The quick brown fox jumps over the lazy dog."));
  const auto answer = post(
      provider, "/v1/messages",
      {{"x-api-key", "errand-session-key"}, {"anthropic-version", "2023-06-01"}}, anthropic_body);
  REQUIRE(answer.status == 200);
  REQUIRE(answer.complete);
  const auto events = events_of(answer.body);
  std::vector<std::string> names;
  std::string text;
  for (const auto& e : events) {
    names.push_back(e.name);
    CHECK(e.data.at("type").as_string() == e.name);
    if (e.name == "content_block_delta")
      text += e.data.at("delta").as_object().at("text").as_string();
  }
  REQUIRE(names.size() >= 8);
  CHECK(names.front() == "message_start");
  CHECK(names[1] == "content_block_start");
  CHECK(names.back() == "message_stop");
  CHECK(names[names.size() - 2] == "message_delta");
  CHECK(std::count(names.begin(), names.end(), "content_block_delta") > 3);
  CHECK(text == "The quick brown fox jumps over the lazy dog.");
  const auto& start = events.front().data.at("message").as_object();
  CHECK(start.at("model") == "claude-test");
  CHECK(start.at("usage").as_object().at("input_tokens") == 12);
  const auto& end = events[events.size() - 2].data;
  CHECK(end.at("delta").as_object().at("stop_reason") == "end_turn");
  CHECK(end.at("usage").as_object().at("output_tokens") == 7);

  const auto recorded = provider.requests();
  REQUIRE(recorded.size() == 1);
  CHECK(recorded[0].method == "POST");
  CHECK(recorded[0].target == "/v1/messages");
  CHECK(recorded[0].header("X-Api-Key") == "errand-session-key");
  CHECK_FALSE(recorded[0].tls);
  CHECK(json::parse(recorded[0].body).as_object().at("model") == "claude-test");
}

TEST_CASE("the OpenAI dialect streams chunks, usage and [DONE] over TLS from the test CA") {
  FakeProvider provider;
  provider.push(ScriptedAnswer::answer("four words of text"));
  const auto answer = post_tls(provider, provider.ca_pem(), "/v1/chat/completions",
                               {{"Authorization", "Bearer errand-session-openai"}}, openai_body);
  REQUIRE(answer.status == 200);
  const auto events = events_of(answer.body);
  REQUIRE(events.size() >= 4);
  CHECK(events.back().name == "done");
  std::string text;
  std::string finish;
  const json::object* usage = nullptr;
  for (const auto& e : events) {
    if (e.name == "done") continue;
    CHECK(e.data.at("object") == "chat.completion.chunk");
    CHECK(e.data.at("model") == "gpt-test");
    for (const auto& choice : e.data.at("choices").as_array()) {
      const auto& delta = choice.as_object().at("delta").as_object();
      if (const auto* content = delta.if_contains("content")) text += content->as_string();
      if (choice.as_object().at("finish_reason").is_string())
        finish = choice.as_object().at("finish_reason").as_string();
    }
    if (const auto* u = e.data.if_contains("usage")) usage = &u->as_object();
  }
  CHECK(text == "four words of text");
  CHECK(finish == "stop");
  REQUIRE(usage != nullptr);
  CHECK(usage->at("prompt_tokens") == 12);
  CHECK(usage->at("completion_tokens") == 7);
  const auto recorded = provider.requests();
  REQUIRE(recorded.size() == 1);
  CHECK(recorded[0].tls);
  CHECK(recorded[0].header("authorization") == "Bearer errand-session-openai");
}

TEST_CASE("a scripted tool call streams as tool_use and as tool_calls") {
  FakeProvider provider;
  provider.push(ScriptedAnswer::tool_call("bash", R"({"command":"ls -la /workspace"})"));
  provider.push(ScriptedAnswer::tool_call("bash", R"({"command":"pwd"})"));
  const auto anthropic = events_of(post(provider, "/v1/messages", {}, anthropic_body).body);
  const auto& block = anthropic[1].data.at("content_block").as_object();
  CHECK(block.at("type") == "tool_use");
  CHECK(block.at("name") == "bash");
  std::string input;
  for (const auto& e : anthropic)
    if (e.name == "content_block_delta") {
      CHECK(e.data.at("delta").as_object().at("type") == "input_json_delta");
      input += e.data.at("delta").as_object().at("partial_json").as_string();
    }
  CHECK(json::parse(input) == json::parse(R"({"command":"ls -la /workspace"})"));
  CHECK(anthropic[anthropic.size() - 2].data.at("delta").as_object().at("stop_reason") ==
        "tool_use");

  const auto openai = events_of(post(provider, "/v1/chat/completions", {}, openai_body).body);
  std::string name, arguments, finish;
  for (const auto& e : openai) {
    if (e.name == "done") continue;
    for (const auto& choice : e.data.at("choices").as_array()) {
      const auto& delta = choice.as_object().at("delta").as_object();
      if (const auto* calls = delta.if_contains("tool_calls")) {
        const auto& function = calls->as_array()[0].as_object().at("function").as_object();
        if (const auto* n = function.if_contains("name")) name = n->as_string();
        arguments += function.at("arguments").as_string();
      }
      if (choice.as_object().at("finish_reason").is_string())
        finish = choice.as_object().at("finish_reason").as_string();
    }
  }
  CHECK(name == "bash");
  CHECK(arguments == R"({"command":"pwd"})");
  CHECK(finish == "tool_calls");
}

TEST_CASE("scripted refusals: a 429 with retry-after, a failure, a missing key") {
  FakeProvider::Options options;
  options.expected_key = "the-right-key";
  FakeProvider provider(options);
  provider.push(ScriptedAnswer::rate_limited(7));
  provider.push(ScriptedAnswer::failure(529, "overloaded for the test"));
  const auto limited =
      post(provider, "/v1/messages", {{"x-api-key", "the-right-key"}}, anthropic_body);
  CHECK(limited.status == 429);
  CHECK(limited.retry_after == "7");
  CHECK(json::parse(limited.body).at("error").at("type") == "rate_limit_error");
  const auto failed = post(provider, "/v1/chat/completions",
                           {{"Authorization", "Bearer the-right-key"}}, openai_body);
  CHECK(failed.status == 529);
  CHECK(json::parse(failed.body).at("error").at("message") == "overloaded for the test");
  const auto wrong_header =
      post(provider, "/v1/messages", {{"Authorization", "Bearer the-right-key"}}, anthropic_body);
  CHECK(wrong_header.status == 401);
  CHECK(json::parse(wrong_header.body).at("error").at("type") == "authentication_error");
  CHECK(provider.requests().size() == 3);
}

TEST_CASE("a cut answer drops the connection before the stream ends") {
  FakeProvider provider;
  provider.push(ScriptedAnswer::cut_off("half an answer"));
  const auto answer = post(provider, "/v1/messages", {}, anthropic_body);
  CHECK(answer.status == 200);
  CHECK_FALSE(answer.complete);
}

TEST_CASE("a reset answer ends in a TCP reset, not a clean close") {
  FakeProvider provider;
  provider.push(ScriptedAnswer::reset_midway("half an answer"));
  const auto answer = post(provider, "/v1/messages", {}, anthropic_body);
  CHECK(answer.status == 200);
  CHECK_FALSE(answer.complete);
  CHECK(answer.error == asio::error::connection_reset);
}

TEST_CASE("past its concurrency limit the fake provider answers 429 and counts the most at once") {
  FakeProvider provider;
  provider.limit_concurrency(1);
  provider.push(ScriptedAnswer::stalled_for(std::chrono::milliseconds(1500), "slow"));
  Answer slow;
  std::thread first([&] { slow = post(provider, "/v1/messages", {}, anthropic_body); });
  REQUIRE(provider.wait_for_requests(1, std::chrono::seconds(10)));
  const auto second = post(provider, "/v1/messages", {}, anthropic_body);
  first.join();
  CHECK(second.status == 429);
  CHECK(second.retry_after == "1");
  CHECK(json::parse(second.body).at("error").at("type") == "rate_limit_error");
  CHECK(slow.status == 200);
  CHECK(slow.complete);
  CHECK(provider.max_in_flight() == 2);
  CHECK(provider.rate_limited_answers() == 1);
  // Once the first is answered, the next call is within the limit again.
  CHECK(post(provider, "/v1/messages", {}, anthropic_body).status == 200);
  CHECK(provider.rate_limited_answers() == 1);
}

TEST_CASE("an answer without streaming is one JSON body") {
  FakeProvider provider;
  provider.push(ScriptedAnswer::answer("whole"));
  const auto answer =
      post(provider, "/v1/messages", {}, R"({"model":"m","max_tokens":5,"messages":[]})");
  REQUIRE(answer.status == 200);
  const auto body = json::parse(answer.body).as_object();
  CHECK(body.at("type") == "message");
  CHECK(body.at("content").as_array()[0].as_object().at("text") == "whole");
  CHECK(body.at("usage").as_object().at("output_tokens") == 7);
}

TEST_CASE("TLS to the fake provider is refused by a client that does not trust the test CA") {
  FakeProvider provider;
  FakeProvider other;  // a second, unrelated test CA
  CHECK(provider.ca_pem() != other.ca_pem());
  CHECK_THROWS(post_tls(provider, other.ca_pem(), "/v1/messages", {}, anthropic_body));
  CHECK(provider.requests().empty());
}

TEST_CASE("the Responses dialect streams typed events from response.created to completed") {
  FakeProvider provider;
  provider.push(ScriptedAnswer::answer("Responses are streamed in typed events."));
  const auto answer = post(provider, "/v1/responses", {{"authorization", "Bearer k"}},
                           R"({"model":"gpt-test","stream":true,"input":"hi"})");
  REQUIRE(answer.status == 200);
  const auto events = events_of(answer.body);
  REQUIRE(events.size() >= 8);
  std::string text;
  std::int64_t sequence = 0;
  for (const auto& e : events) {
    CHECK(e.data.at("type").as_string() == e.name);
    CHECK(e.data.at("sequence_number") == sequence++);
    if (e.name == "response.output_text.delta") text += e.data.at("delta").as_string();
  }
  CHECK(text == "Responses are streamed in typed events.");
  CHECK(events.front().name == "response.created");
  CHECK(events[2].name == "response.output_item.added");
  CHECK(events[2].data.at("item").at("type") == "message");
  const auto& done = events.back();
  CHECK(done.name == "response.completed");
  const auto& response = done.data.at("response").as_object();
  CHECK(response.at("status") == "completed");
  CHECK(response.at("model") == "gpt-test");
  CHECK(response.at("usage").at("output_tokens") == 7);
  CHECK(response.at("output").at(0).at("content").at(0).at("text") ==
        "Responses are streamed in typed events.");
}

TEST_CASE("driving a shell command: the agent's shell tool is called, then its output reported") {
  FakeProvider provider;
  provider.drive_shell_command("echo hi-$((1+1))");
  // Claude Code's shape: a Bash tool on offer and the prompt last.
  const std::string ask = R"({"model":"m","stream":true,"max_tokens":100,
    "tools":[{"name":"Read","input_schema":{}},{"name":"Bash","input_schema":{}}],
    "messages":[{"role":"user","content":[{"type":"text","text":"run it"}]}]})";
  auto events = events_of(post(provider, "/v1/messages", {}, ask).body);
  REQUIRE(events.size() > 3);
  CHECK(events[1].data.at("content_block").at("type") == "tool_use");
  CHECK(events[1].data.at("content_block").at("name") == "Bash");
  std::string input;
  for (const auto& e : events)
    if (e.name == "content_block_delta") input += e.data.at("delta").at("partial_json").as_string();
  CHECK(json::parse(input).at("command") == "echo hi-$((1+1))");

  const std::string result = R"({"model":"m","stream":true,"max_tokens":100,
    "tools":[{"name":"Bash","input_schema":{}}],
    "messages":[{"role":"user","content":[{"type":"text","text":"run it"}]},
      {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},
      {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"hi-2\n"}]}]})";
  events = events_of(post(provider, "/v1/messages", {}, result).body);
  std::string text;
  for (const auto& e : events)
    if (e.name == "content_block_delta") text += e.data.at("delta").at("text").as_string();
  CHECK(text == "The command printed: hi-2");

  // codex's shape: exec_command on offer, its output wrapped in codex's own report.
  const std::string codex_ask = R"({"model":"m","stream":true,
    "tools":[{"type":"function","name":"exec_command","parameters":{}}],
    "input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}]})";
  events = events_of(post(provider, "/v1/responses", {}, codex_ask).body);
  const auto& item = events.back().data.at("response").at("output").at(0);
  CHECK(item.at("type") == "function_call");
  CHECK(item.at("name") == "exec_command");
  CHECK(json::parse(item.at("arguments").as_string()).at("cmd") == "echo hi-$((1+1))");
  const std::string codex_result = R"({"model":"m","stream":true,
    "tools":[{"type":"function","name":"exec_command","parameters":{}}],
    "input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]},
      {"type":"function_call","call_id":"c1","name":"exec_command","arguments":"{}"},
      {"type":"function_call_output","call_id":"c1",
       "output":"Process exited with code 0\nOutput:\nhi-2\n"}]})";
  events = events_of(post(provider, "/v1/responses", {}, codex_result).body);
  CHECK(events.back().data.at("response").at("output").at(0).at("content").at(0).at("text") ==
        "The command printed: hi-2");

  // A request without the shell tool (a title request, say) gets the queued or default answer.
  provider.push(ScriptedAnswer::answer("A short title"));
  events = events_of(post(provider, "/v1/messages", {},
                          R"({"model":"m","stream":true,"max_tokens":10,
                              "messages":[{"role":"user","content":"title?"}]})")
                         .body);
  text.clear();
  for (const auto& e : events)
    if (e.name == "content_block_delta") text += e.data.at("delta").at("text").as_string();
  CHECK(text == "A short title");
}
