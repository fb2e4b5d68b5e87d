// Reading the broker's answer: the chunked coding, the frames inside it, and the outcome for an
// admitted answer, a refusal and a connection that ends early, fed in pieces of every size.

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include "tools/delegate/answer_reader.hpp"

using namespace errand::delegate;

namespace {

std::string chunked(const std::vector<std::string>& pieces, bool last = true) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const auto& piece : pieces) {
    std::string size;
    for (auto n = piece.size(); n > 0; n /= 16) size.insert(size.begin(), kHex[n % 16]);
    out += size + "\r\n" + piece + "\r\n";
  }
  if (last) out += "0\r\n\r\n";
  return out;
}

std::string frame(const std::string& kind, const std::string& payload) {
  return kind + " " + std::to_string(payload.size()) + "\n" + payload;
}

const std::string kAdmitted =
    "HTTP/1.1 200 OK\r\nContent-Type: application/x-errand-delegate\r\n"
    "Transfer-Encoding: chunked\r\n\r\n";

struct Read {
  std::optional<Outcome> outcome;  // none: the connection ended first
  std::string text;
};

// Feeds the answer in pieces of `step` bytes, then the close if it did not end by itself.
Read read_answer(const std::string& answer, std::size_t step) {
  Read r;
  AnswerReader reader([&](std::string_view t) { r.text += t; });
  for (std::size_t i = 0; i < answer.size() && !r.outcome; i += step)
    r.outcome = reader.feed(std::string_view(answer).substr(i, step));
  if (!r.outcome) r.outcome = reader.at_close();
  return r;
}

}  // namespace

TEST_CASE("frames split across chunks and reads are put back together", "[delegate]") {
  const auto step = GENERATE(as<std::size_t>{}, 1, 2, 3, 7, 64, 100000);
  const std::string body = frame("text", "The first failing test is ") +
                           frame("text", "parser_tests: expected 3, got 4.\n") +
                           frame("end", "input_tokens=900 output_tokens=12");
  // Chunk boundaries fall inside frame headers and payloads alike.
  const auto answer = kAdmitted + chunked({body.substr(0, 5), body.substr(5, 30), body.substr(35)});
  const auto r = read_answer(answer, step);
  INFO("step " << step);
  CHECK(r.outcome->exit_code == 0);
  CHECK(r.outcome->sentence.empty());
  CHECK(r.text == "The first failing test is parser_tests: expected 3, got 4.\n");
}

TEST_CASE("an error frame ends the answer with its sentence", "[delegate]") {
  const auto r = read_answer(
      kAdmitted + chunked({frame("text", "partial"),
                           frame("error", "the delegate model did not finish within 60000 ms\n")}),
      5);
  CHECK(r.outcome->exit_code == 1);
  CHECK(r.outcome->sentence == "the delegate model did not finish within 60000 ms");
  CHECK(r.text == "partial");
}

TEST_CASE("an answer that stops before end or error is a failure", "[delegate]") {
  const std::string early = "the broker closed the connection before the answer ended";
  SECTION("mid-frame") {
    const auto r = read_answer(
        kAdmitted + chunked({frame("text", "half an ans")}, false).substr(0, kAdmitted.size() + 12),
        4);
    CHECK(r.outcome->exit_code == 1);
    CHECK(r.outcome->sentence == early);
  }
  SECTION("between frames") {
    const auto r = read_answer(kAdmitted + chunked({frame("text", "all of it")}, false), 4);
    CHECK(r.text == "all of it");
    CHECK(r.outcome->sentence == early);
  }
  SECTION("the last chunk without an end frame") {
    const auto r = read_answer(kAdmitted + chunked({frame("text", "x")}), 4);
    CHECK(r.outcome->sentence == early);
  }
  SECTION("before any byte") {
    CHECK(read_answer("", 1).outcome->sentence == early);
  }
}

TEST_CASE("a refusal's body is its sentence, however it is framed", "[delegate]") {
  const std::string sentence =
      "delegate has been used 8 times this turn, the limit of agent.delegate.perTurn";
  SECTION("Content-Length") {
    const auto r =
        read_answer("HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: " +
                        std::to_string(sentence.size() + 1) + "\r\n\r\n" + sentence + "\n",
                    3);
    CHECK(r.outcome->exit_code == 1);
    CHECK(r.outcome->sentence == sentence);
  }
  SECTION("chunked") {
    const auto r =
        read_answer("HTTP/1.1 413 Payload Too Large\r\nTransfer-Encoding: chunked\r\n\r\n" +
                        chunked({sentence}),
                    2);
    CHECK(r.outcome->sentence == sentence);
  }
  SECTION("to the close") {
    const auto r = read_answer("HTTP/1.1 401 Unauthorized\r\n\r\n" + sentence, 9);
    CHECK(r.outcome->sentence == sentence);
  }
  SECTION("empty") {
    const auto r = read_answer("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n", 9);
    CHECK(r.outcome->sentence == "the broker refused the request (HTTP 503)");
  }
}

TEST_CASE("an answer delegate cannot read is a failure saying why", "[delegate]") {
  const std::string lead = "the broker's answer could not be read: ";
  CHECK(read_answer("SSH-2.0-OpenSSH\r\n\r\n", 4).outcome->sentence ==
        lead + "its status line is \"SSH-2.0-OpenSSH\"");
  CHECK(read_answer("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: "
                    "chunked\r\n\r\n",
                    4)
            .outcome->sentence ==
        lead + "it is of type \"text/plain\", not application/x-errand-delegate");
  CHECK(read_answer("HTTP/1.1 200 OK\r\nContent-Type: application/x-errand-delegate\r\n"
                    "Content-Length: 3\r\n\r\nabc",
                    4)
            .outcome->sentence == lead + "its body is not chunked");
  CHECK(read_answer(kAdmitted + chunked({frame("thought", "x")}), 4).outcome->sentence ==
        lead + "a frame has the unknown kind \"thought\"");
  CHECK(read_answer(kAdmitted + chunked({"text 1x\nab"}), 4).outcome->sentence ==
        lead + "a text frame's length is \"1x\"");
  CHECK(read_answer(kAdmitted + "zz\r\n", 4).outcome->sentence == lead + "a chunk size is \"zz\"");
  CHECK(read_answer("HTTP/1.1 200 OK\r\nContent", 4).outcome->sentence ==
        lead + "the connection ended inside its headers");
}

TEST_CASE("the frame reader keeps empty frames and refuses an oversized header", "[delegate]") {
  FrameReader reader;
  std::vector<Frame> frames;
  REQUIRE(reader.feed("text 0\nend 0\n", frames));
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].kind == FrameKind::text);
  CHECK(frames[0].payload.empty());
  CHECK(frames[1].kind == FrameKind::end);
  CHECK(reader.between_frames());
  CHECK_FALSE(reader.feed(std::string(40, 't'), frames));
  CHECK(reader.error() == "a frame header is too long");
}
