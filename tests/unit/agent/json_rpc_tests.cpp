// JSON-RPC line parsing, the bounded line splitter and the stderr tail, without an agent.

#include "core/agent/json_rpc.hpp"
#include "core/agent/line_splitter.hpp"
#include "tests/support/result_printing.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>

using namespace errand::agent;

TEST_CASE("lines are sorted into requests, notifications and responses") {
  auto request = rpc::parse_message(
      R"({"jsonrpc":"2.0","id":"fake-1","method":"session/request_permission","params":{"a":1}})");
  REQUIRE(request);
  const auto* r = std::get_if<rpc::Request>(&*request);
  REQUIRE(r != nullptr);
  CHECK(r->id == "fake-1");
  CHECK(r->method == "session/request_permission");
  CHECK(r->params.as_object().at("a") == 1);

  auto notification = rpc::parse_message(R"({"jsonrpc":"2.0","method":"session/update"})");
  REQUIRE(notification);
  const auto* n = std::get_if<rpc::Notification>(&*notification);
  REQUIRE(n != nullptr);
  CHECK(n->params.is_null());

  auto answer = rpc::parse_message(R"({"jsonrpc":"2.0","id":4,"result":null})");
  REQUIRE(answer);
  const auto* a = std::get_if<rpc::Response>(&*answer);
  REQUIRE(a != nullptr);
  CHECK(a->id == 4);
  REQUIRE(a->result);
  CHECK(a->result->is_null());

  auto failure = rpc::parse_message(
      R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})");
  REQUIRE(failure);
  const auto& f = std::get<rpc::Response>(*failure);
  REQUIRE(f.error);
  CHECK(f.error->code == -32700);
  CHECK(f.error->message == "Parse error");
}

TEST_CASE("a line that is not a JSON-RPC message says which rule it broke") {
  auto why = [](const char* line) { return rpc::parse_message(line).error().message; };
  CHECK(why("{not json").find("it is not JSON") == 0);
  CHECK(why("\"text\"") == "it is a string where a JSON-RPC message is an object");
  CHECK(why(R"({"method":"x"})") == "it lacks \"jsonrpc\": \"2.0\", so it is not JSON-RPC 2.0");
  CHECK(why(R"({"jsonrpc":"2.0","method":["x"]})") == "its \"method\" is an array, not a string");
  CHECK(why(R"({"jsonrpc":"2.0","id":1.5,"method":"x"})") ==
        "its \"id\" is a number, not a string or an integer");
  CHECK(why(R"({"jsonrpc":"2.0","method":"x","params":3})") ==
        "its \"params\" is a number, not an object or an array");
  CHECK(why(R"({"jsonrpc":"2.0"})") ==
        "it has neither a \"method\" nor an \"id\", so it is no message");
  CHECK(why(R"({"jsonrpc":"2.0","id":1})") ==
        "a response must carry exactly one of \"result\" and \"error\"");
  CHECK(why(R"({"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}})") ==
        "its \"error\" has no integer \"code\"");
}

TEST_CASE("lines errand writes are one JSON-RPC message each, newline included") {
  const auto line = rpc::request_line(7, "session/prompt", boost::json::object{{"sessionId", "s"}});
  REQUIRE(line.back() == '\n');
  const auto parsed = boost::json::parse(line).as_object();
  CHECK(parsed.at("jsonrpc") == "2.0");
  CHECK(parsed.at("id") == 7);
  CHECK(parsed.at("params").as_object().at("sessionId") == "s");
  const auto error = boost::json::parse(rpc::error_line("fake-2", -32601, "no")).as_object();
  CHECK(error.at("id") == "fake-2");
  CHECK(error.at("error").as_object().at("code") == -32601);
  const auto note =
      boost::json::parse(rpc::notification_line("session/cancel", nullptr)).as_object();
  CHECK_FALSE(note.contains("id"));
  CHECK_FALSE(note.contains("params"));
}

TEST_CASE("the line splitter joins pieces, strips CR and refuses a line past its bound") {
  LineSplitter splitter(10);
  std::vector<std::string> lines;
  REQUIRE(splitter.feed("abc", lines));
  REQUIRE(splitter.feed("de\r\nfgh\n\nij", lines));
  REQUIRE(lines == std::vector<std::string>{"abcde", "fgh", ""});
  CHECK(splitter.pending_bytes() == 2);
  lines.clear();
  REQUIRE(splitter.feed("0123456", lines));  // 9 bytes pending: still within
  CHECK(lines.empty());
  CHECK_FALSE(splitter.feed("89", lines));  // 11 bytes without a newline
  CHECK_FALSE(splitter.feed("\n", lines));  // spent
  LineSplitter exact(4);
  REQUIRE(exact.feed("abcd\n", lines));
  CHECK(lines.back() == "abcd");
  CHECK_FALSE(exact.feed("abcde\n", lines));
}

TEST_CASE("the stderr tail keeps the last bytes and starts on a character boundary") {
  StderrTail tail(10);
  tail.append("  first part ");
  tail.append("and the end  \n");
  CHECK(tail.text() == "the end");
  StderrTail utf8(3);
  utf8.append("abc\xc3\xa9\xc3\xa9");  // "abcéé": 3 bytes would start inside the first é
  CHECK(utf8.text() == "\xc3\xa9");
  StderrTail empty;
  empty.append(" \n\t");
  CHECK(empty.text().empty());
}
