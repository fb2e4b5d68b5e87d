// The pieces of a delegate call that need no socket: the request head's checks and the
// streamed answer's reading in both dialects.

#include <catch2/catch_test_macros.hpp>

#include <boost/beast/http/message.hpp>

#include "plugins/broker/delegate/delegate_call.hpp"
#include "plugins/broker/delegate/delegate_request.hpp"
#include "plugins/broker/provider/answer_stream.hpp"

using namespace errand::broker;
namespace http = boost::beast::http;

namespace {

std::vector<std::string> feed_in_pieces(AnswerStream& stream, std::string_view bytes,
                                        std::size_t piece) {
  std::vector<std::string> texts;
  for (std::size_t at = 0; at < bytes.size(); at += piece)
    stream.feed(bytes.substr(at, piece), texts);
  return texts;
}

std::string joined(const std::vector<std::string>& texts) {
  std::string out;
  for (const auto& t : texts) out += t;
  return out;
}

}  // namespace

TEST_CASE("an anthropic stream is read however its bytes are cut", "[delegate][stream]") {
  const std::string events =
      "event: message_start\r\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":"
      "{\"input_tokens\":31,\"output_tokens\":1}}}\r\n\r\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
      "\"delta\":{\"type\":\"text_delta\",\"text\":\"caf\\u00e9 \"}}\n\n"
      "event: ping\ndata: {\"type\":\"ping\"}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
      "\"delta\":{\"type\":\"text_delta\",\"text\":\"done\"}}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":"
      "5}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  for (const std::size_t piece : {std::size_t(1), std::size_t(7), events.size()}) {
    CAPTURE(piece);
    AnswerStream stream(Dialect::anthropic);
    CHECK(joined(feed_in_pieces(stream, events, piece)) == "caf\xC3\xA9 done");
    CHECK(stream.ended());
    CHECK(stream.error().empty());
    CHECK(stream.input_tokens == std::optional<std::uint64_t>(31));
    CHECK(stream.output_tokens == std::optional<std::uint64_t>(5));
  }
}

TEST_CASE("an openai stream gives its pieces, its usage and its cost", "[delegate][stream]") {
  const std::string events =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"It is \"}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"fine.\"}}]}\n\n"
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":90,\"completion_tokens\":3,"
      "\"cost\":0.00042}}\n\n"
      "data: [DONE]\n\n";
  AnswerStream stream(Dialect::openai);
  CHECK(joined(feed_in_pieces(stream, events, 5)) == "It is fine.");
  CHECK(stream.ended());
  CHECK(stream.input_tokens == std::optional<std::uint64_t>(90));
  CHECK(stream.output_tokens == std::optional<std::uint64_t>(3));
  REQUIRE(stream.cost.has_value());
  CHECK(*stream.cost == 0.00042);
}

TEST_CASE("an error inside the stream is kept and the stream does not end", "[delegate][stream]") {
  AnswerStream stream(Dialect::anthropic);
  std::vector<std::string> texts;
  stream.feed(
      "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
      "\"message\":\"Overloaded\"}}\n\n",
      texts);
  CHECK(texts.empty());
  CHECK(stream.error() == "Overloaded");
  CHECK_FALSE(stream.ended());
  CHECK(provider_error_message(R"({"error":{"message":"slow down"}})") == "slow down");
  CHECK(provider_error_message("plain\ntext") == "plain text");
}

TEST_CASE("a frame is its kind, its length and exactly that many bytes", "[delegate]") {
  CHECK(delegate_frame("text", "caf\xC3\xA9") == "text 5\ncaf\xC3\xA9");
  CHECK(delegate_frame("end", "") == "end 0\n");
}

TEST_CASE("the delegate head is read with its limits", "[delegate]") {
  http::request_header<> head;
  head.set("X-Errand-Question", "why%3F%20%E2%9C%93");
  head.set("X-Errand-Artefact", "standard%20input");
  const auto ok = read_delegate_head(head, 10, false);
  REQUIRE(std::holds_alternative<DelegateHead>(ok));
  CHECK(std::get<DelegateHead>(ok).question == "why? \xE2\x9C\x93");
  CHECK(std::get<DelegateHead>(ok).artefact_name == "standard input");
  CHECK(std::get<DelegateHead>(ok).artefact_bytes == 10);
  const auto at_limit = read_delegate_head(head, kDelegateArtefactLimit, false);
  CHECK(std::holds_alternative<DelegateHead>(at_limit));
  head.set("X-Errand-Artefact", std::string(257, 'n'));
  const auto long_name = read_delegate_head(head, 10, false);
  REQUIRE(std::holds_alternative<DelegateRefusal>(long_name));
  CHECK(std::get<DelegateRefusal>(long_name).sentence.find("257 bytes") != std::string::npos);
  head.set("X-Errand-Artefact", "a%FF");
  const auto not_text = read_delegate_head(head, 10, false);
  REQUIRE(std::holds_alternative<DelegateRefusal>(not_text));
  CHECK(std::get<DelegateRefusal>(not_text).sentence == "the artefact name is not UTF-8 text");
  CHECK_FALSE(check_artefact_text("plain text").has_value());
}
