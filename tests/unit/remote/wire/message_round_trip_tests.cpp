#include "core/remote/snapshot/sha256.hpp"
#include "core/remote/wire/frame_reader.hpp"
#include "core/remote/wire/messages.hpp"
#include "tests/support/result_checks.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <set>
#include <string>
#include <vector>

using errand::remote::sha256_hex;
using errand::test::ok;

namespace wire = errand::remote::wire;

namespace {

// A job id as make_job_id writes one.
const std::string kRoundTripJob = "01J9ZQ4M3V5B7N8P0R2S4T6W8X";

// One or more of every message, with the edge values of their fields.
std::vector<wire::Message> sample_messages() {
  const auto& job = kRoundTripJob;
  const std::string binary_data("\0\xff\n\"\\{}", 8);
  boost::json::object listing = boost::json::parse(
                                    R"({"jobs":[{"id":"x","n":-3,"f":1.5,"u":18446744073709551615,
                                        "b":true,"z":null,"nested":{"a":[]}}]})")
                                    .as_object();
  return {
      wire::Hello{wire::kProtocolVersion, "errand 0.1.0"},
      wire::Admit{job, {"make", "", "-j2"}, {{"CC", "gcc"}, {"_X1", ""}}, "sub/dir", true},
      wire::Admit{job, {"tool \"quoted\" é"}, {}, "", false},
      wire::ManifestPart{false, R"([["a","f",1,")"},
      wire::ManifestPart{true, ""},
      wire::Need{{sha256_hex("a"), sha256_hex("b")}},
      wire::Need{},
      wire::BlobChunk{sha256_hex("blob"), false, binary_data},
      wire::BlobChunk{sha256_hex(""), true, ""},
      wire::Admitted{job, wire::JobState::queued, false, 3},
      wire::Admitted{job, wire::JobState::running, true, std::nullopt},
      wire::Admitted{job, wire::JobState::ended, true, std::nullopt},
      wire::Refused{wire::RefusalCode::queue_full, "the queue holds 10 jobs"},
      wire::Refused{wire::RefusalCode::enforcement_gap, ""},
      wire::Queued{1},
      wire::Queued{UINT64_MAX},
      wire::Output{1, wire::OutputStream::standard_output, "hello\n"},
      wire::Output{UINT64_MAX, wire::OutputStream::standard_error, binary_data},
      wire::Attach{job, 0},
      wire::Attach{job, UINT64_MAX},
      wire::Input{binary_data},
      wire::Input{""},
      wire::Signal{job, wire::JobSignal::interrupt},
      wire::Signal{job, wire::JobSignal::kill},
      wire::Detach{},
      wire::End{job, 0, std::nullopt, 0, ""},
      wire::End{job, INT32_MIN, std::nullopt, 12, "exited"},
      wire::End{job, std::nullopt, 9, UINT64_MAX, "killed by signal 9"},
      wire::Request{wire::RequestOp::ps, std::nullopt},
      wire::Request{wire::RequestOp::kill, job},
      wire::Request{wire::RequestOp::df, std::nullopt},
      wire::Answer{listing},
      wire::Answer{},
  };
}

}  // namespace

TEST_CASE("every message decodes from its encoding to itself", "[remote][wire]") {
  std::set<std::size_t> kinds_seen;
  for (const auto& message : sample_messages()) {
    CAPTURE(message.index());
    kinds_seen.insert(message.index());
    const auto bytes = wire::encode_message(message);
    wire::FrameReader reader;
    reader.feed(bytes);
    auto frame = reader.next();
    REQUIRE(ok(frame));
    REQUIRE(frame->has_value());
    CHECK((*frame)->type == wire::frame_type_of(message));
    auto decoded = wire::decode_message(**frame);
    REQUIRE(ok(decoded));
    CHECK(*decoded == message);
    CHECK(ok(reader.check_clean_end()));
  }
  CHECK(kinds_seen.size() == std::variant_size_v<wire::Message>);
}

TEST_CASE("a message's frame type is the one the protocol gives it", "[remote][wire]") {
  CHECK(wire::frame_type_of(wire::Hello{}) == wire::FrameType::hello);
  CHECK(wire::frame_type_of(wire::Input{}) == wire::FrameType::input);
  CHECK(wire::frame_type_of(wire::Answer{}) == wire::FrameType::answer);
  CHECK(static_cast<int>(wire::FrameType::blob) == 5);
  CHECK(static_cast<int>(wire::FrameType::answer) == 16);
  CHECK(wire::frame_type_name(wire::FrameType::input) == "stdin");
}

TEST_CASE("binary payloads have their documented layout", "[remote][wire]") {
  const wire::Output output{0x0102030405060708, wire::OutputStream::standard_error, "x"};
  CHECK(wire::encode_payload(output) == std::string("\1\2\3\4\5\6\7\x08\2x", 10));
  const auto blob = sha256_hex("content");
  CHECK(wire::encode_payload(wire::BlobChunk{blob, true, "content"}) == blob + "\1content");
  CHECK(wire::encode_payload(wire::ManifestPart{false, "[["}) == std::string("\0[[", 3));
  CHECK(wire::encode_payload(wire::Detach{}).empty());
}

TEST_CASE("JSON payloads spell the protocol's names", "[remote][wire]") {
  const auto& job = kRoundTripJob;
  CHECK(wire::encode_payload(wire::Signal{job, wire::JobSignal::terminate}) ==
        R"({"job":")" + job + R"(","signal":"TERM"})");
  CHECK(wire::encode_payload(wire::Refused{wire::RefusalCode::not_allowed, "no"}) ==
        R"({"code":"not-allowed","message":"no"})");
  CHECK(wire::encode_payload(wire::End{job, std::nullopt, 15, 4, "d"}) ==
        R"({"job":")" + job + R"(","signal":15,"last":4,"detail":"d"})");
}
