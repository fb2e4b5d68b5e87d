#include "core/remote/wire/frame.hpp"
#include "core/remote/wire/frame_reader.hpp"
#include "tests/support/result_checks.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <string>
#include <string_view>
#include <vector>

using Catch::Matchers::Equals;
using errand::remote::wire::append_frame;
using errand::remote::wire::Frame;
using errand::remote::wire::FrameReader;
using errand::remote::wire::FrameType;
using errand::remote::wire::kMaxFrameBytes;
using errand::test::ok;

namespace {

std::string framed(FrameType type, std::string_view payload) {
  std::string out;
  append_frame(out, type, payload);
  return out;
}

std::string length_prefix(std::uint32_t length) {
  return {static_cast<char>(length >> 24), static_cast<char>((length >> 16) & 0xff),
          static_cast<char>((length >> 8) & 0xff), static_cast<char>(length & 0xff)};
}

// Every frame the reader yields until it has none, failing the test on a refusal.
std::vector<Frame> drain(FrameReader& reader) {
  std::vector<Frame> frames;
  for (;;) {
    auto next = reader.next();
    REQUIRE(ok(next));
    if (!*next) return frames;
    frames.push_back(std::move(**next));
  }
}

std::string refusal_after(std::string_view bytes) {
  FrameReader reader;
  reader.feed(bytes);
  auto next = reader.next();
  REQUIRE_FALSE(next.has_value());
  CHECK(reader.failed());
  return next.error().message;
}

}  // namespace

TEST_CASE("a frame is its big-endian length, its type byte and its payload", "[remote][wire]") {
  CHECK(framed(FrameType::need, "{}") == std::string("\0\0\0\3\4{}", 7));
  CHECK(framed(FrameType::detach, "") == std::string("\0\0\0\1\15", 5));
  const std::string big(70000, 'x');
  CHECK(framed(FrameType::input, big).substr(0, 5) == std::string("\0\1\021\161\13", 5));
}

TEST_CASE("two frames split at every byte boundary reassemble", "[remote][wire]") {
  const auto stream = framed(FrameType::hello, R"({"protocol":1})") +
                      framed(FrameType::output, std::string("\0\0\0\0\0\0\0\1\1hi", 11));
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    CAPTURE(cut);
    FrameReader reader;
    reader.feed(std::string_view(stream).substr(0, cut));
    auto frames = drain(reader);
    reader.feed(std::string_view(stream).substr(cut));
    for (auto& frame : drain(reader)) frames.push_back(std::move(frame));
    REQUIRE(frames.size() == 2);
    CHECK(frames[0] == Frame{FrameType::hello, R"({"protocol":1})"});
    CHECK(frames[1] == Frame{FrameType::output, std::string("\0\0\0\0\0\0\0\1\1hi", 11)});
    CHECK(ok(reader.check_clean_end()));
  }
}

TEST_CASE("a frame fed one byte at a time comes out once, whole", "[remote][wire]") {
  const auto stream = framed(FrameType::answer, R"({"jobs":[]})");
  FrameReader reader;
  std::vector<Frame> frames;
  for (const char byte : stream) {
    reader.feed(std::string_view(&byte, 1));
    for (auto& frame : drain(reader)) frames.push_back(std::move(frame));
  }
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].payload == R"({"jobs":[]})");
}

TEST_CASE("two frames in one read come out one after the other", "[remote][wire]") {
  FrameReader reader;
  reader.feed(framed(FrameType::detach, "") + framed(FrameType::input, "data"));
  const auto frames = drain(reader);
  REQUIRE(frames.size() == 2);
  CHECK(frames[0] == Frame{FrameType::detach, ""});
  CHECK(frames[1] == Frame{FrameType::input, "data"});
}

TEST_CASE("a frame at the limit is read and one byte over it is refused", "[remote][wire]") {
  const std::string payload(kMaxFrameBytes - 1, 'd');
  FrameReader reader;
  reader.feed(framed(FrameType::input, payload));
  const auto frames = drain(reader);
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].payload.size() == kMaxFrameBytes - 1);

  CHECK_THAT(refusal_after(length_prefix(kMaxFrameBytes + 1)),
             Equals("frame of 1048705 bytes is over the 1048704-byte limit"));
}

TEST_CASE("an oversize length is refused from its four bytes alone", "[remote][wire]") {
  CHECK_THAT(refusal_after(length_prefix(9000000)),
             Equals("frame of 9000000 bytes is over the 1048704-byte limit"));
  CHECK_THAT(refusal_after(length_prefix(0xffffffff)),
             Equals("frame of 4294967295 bytes is over the 1048704-byte limit"));
}

TEST_CASE("a zero length is refused", "[remote][wire]") {
  CHECK_THAT(refusal_after(length_prefix(0)), Equals("frame of length 0 has no type byte"));
}

TEST_CASE("an unknown type byte is refused before the payload arrives", "[remote][wire]") {
  CHECK_THAT(refusal_after(length_prefix(100) + "\x4d"), Equals("unknown frame type 77"));
  CHECK_THAT(refusal_after(length_prefix(1) + std::string(1, '\0')),
             Equals("unknown frame type 0"));
  CHECK_THAT(refusal_after(length_prefix(1) + "\x11"), Equals("unknown frame type 17"));
}

TEST_CASE("a failed reader stays failed, even over good frames", "[remote][wire]") {
  FrameReader reader;
  reader.feed(framed(FrameType::detach, "") + length_prefix(0));
  auto first = reader.next();
  REQUIRE(ok(first));
  CHECK(first->has_value());
  auto bad = reader.next();
  REQUIRE_FALSE(bad.has_value());
  reader.feed(framed(FrameType::detach, ""));
  auto again = reader.next();
  REQUIRE_FALSE(again.has_value());
  CHECK(again.error().message == bad.error().message);
  CHECK_FALSE(reader.check_clean_end().has_value());
}

TEST_CASE("a stream that ends inside a frame is told apart from a clean end", "[remote][wire]") {
  FrameReader reader;
  CHECK(ok(reader.check_clean_end()));
  const auto frame = framed(FrameType::input, "abc");
  reader.feed(std::string_view(frame).substr(0, 6));
  CHECK(drain(reader).empty());
  auto end = reader.check_clean_end();
  REQUIRE_FALSE(end.has_value());
  CHECK_THAT(end.error().message, Equals("the stream ended 6 bytes into a frame"));
}
