#include "core/remote/jobs/job_id.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "core/remote/wire/messages.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <string>
#include <string_view>

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::EndsWith;
using Catch::Matchers::Equals;
using Catch::Matchers::StartsWith;
using errand::remote::sha256_hex;
using errand::sdk::Error;

namespace wire = errand::remote::wire;

namespace {

constexpr std::string_view kRefusalJob = "01J9ZQ4M3V5B7N8P0R2S4T6W8X";

// The refusal decode_message gives the frame; the test fails if it decodes.
std::string refusal_of(wire::FrameType type, std::string_view payload) {
  auto decoded = wire::decode_message(wire::Frame{type, std::string(payload)});
  REQUIRE_FALSE(decoded.has_value());
  CHECK(decoded.error().kind == Error::Kind::refused);
  return decoded.error().message;
}

std::string admit_with(std::string_view argv, std::string_view env = "{}",
                       std::string_view workdir = R"("")") {
  return std::string(R"({"job":")") + std::string(kRefusalJob) + R"(","argv":)" +
         std::string(argv) + R"(,"env":)" + std::string(env) + R"(,"workdir":)" +
         std::string(workdir) + R"(,"snapshot":false})";
}

std::string output_payload(std::string_view sequence, char stream, std::string_view data) {
  return std::string(sequence) + stream + std::string(data);
}

const std::string kSequenceOne("\0\0\0\0\0\0\0\1", 8);

}  // namespace

TEST_CASE("a hello of another protocol version is refused, naming both", "[remote][wire]") {
  CHECK_THAT(refusal_of(wire::FrameType::hello, R"({"protocol":2,"program":"errand 9"})"),
             Equals("hello: the peer speaks protocol 2; this side speaks 1"));
  // A later version's hello may have other fields; the version is still what is reported.
  CHECK_THAT(refusal_of(wire::FrameType::hello, R"({"protocol":3,"features":[]})"),
             Equals("hello: the peer speaks protocol 3; this side speaks 1"));
  CHECK_THAT(refusal_of(wire::FrameType::hello, R"({"protocol":1,"program":""})"),
             Equals("hello: \"program\" must be 1 to 256 bytes, not 0"));
}

TEST_CASE("a JSON payload must be one object without repeated keys", "[remote][wire]") {
  CHECK_THAT(refusal_of(wire::FrameType::need, R"([1])"),
             Equals("need: the payload must be a JSON object, not an array"));
  CHECK_THAT(refusal_of(wire::FrameType::queued, R"({"position":1)"),
             StartsWith("queued: the payload is not JSON: "));
  CHECK_THAT(refusal_of(wire::FrameType::queued, R"({"position":1} {})"),
             StartsWith("queued: the payload is not JSON: "));
  CHECK_THAT(refusal_of(wire::FrameType::queued, R"({"position":1,"position":2})"),
             Equals("queued: the key \"position\" appears twice in one object"));
  CHECK_THAT(refusal_of(wire::FrameType::answer, R"({"a":[{"k":1,"k":1}]})"),
             Equals("answer: the key \"k\" appears twice in one object"));
  CHECK_THAT(refusal_of(wire::FrameType::answer, R"("text")"),
             Equals("answer: the payload must be a JSON object, not a string"));
}

TEST_CASE("an unknown key is refused, naming it", "[remote][wire]") {
  CHECK_THAT(refusal_of(wire::FrameType::queued, R"({"position":1,"extra":true})"),
             Equals("queued: unknown key \"extra\""));
  CHECK_THAT(refusal_of(wire::FrameType::attach,
                        R"({"job":"01J9ZQ4M3V5B7N8P0R2S4T6W8X","from":0,"From":1})"),
             Equals("attach: unknown key \"From\""));
}

TEST_CASE("a field of the wrong type or range is refused, naming it", "[remote][wire]") {
  CHECK_THAT(refusal_of(wire::FrameType::queued, R"({"position":"1"})"),
             Equals("queued: \"position\" must be a number, not a string"));
  CHECK_THAT(refusal_of(wire::FrameType::queued, R"({"position":-1})"),
             Equals("queued: \"position\" must be an integer from 0 to 18446744073709551615, "
                    "not -1"));
  CHECK_THAT(refusal_of(wire::FrameType::queued, R"({"position":0})"),
             Equals("queued: \"position\" counts from 1, not 0"));
  CHECK_THAT(refusal_of(wire::FrameType::attach, R"({"job":"01J9ZQ4M3V5B7N8P0R2S4T6W8X",
                                                     "from":1.5})"),
             Equals("attach: \"from\" must be an integer from 0 to 18446744073709551615, "
                    "not 1.5E0"));
  CHECK_THAT(refusal_of(wire::FrameType::attach, R"({"job":"01J9ZQ4M3V5B7N8P0R2S4T6W8X"})"),
             Equals("attach: \"from\" is missing"));
  CHECK_THAT(refusal_of(wire::FrameType::admit,
                        R"({"job":"01J9ZQ4M3V5B7N8P0R2S4T6W8X","argv":["ls"],"env":{},
                            "workdir":"","snapshot":1})"),
             Equals("admit: \"snapshot\" must be a boolean, not a number"));
  CHECK_THAT(refusal_of(wire::FrameType::refused, R"({"code":"nope","message":""})"),
             ContainsSubstring("\"code\" must be one of \"not-allowed\", \"queue-full\""));
}

TEST_CASE("a job id that is not a ULID is refused", "[remote][wire]") {
  CHECK_THAT(refusal_of(wire::FrameType::attach, R"({"job":"abc","from":0})"),
             Equals("attach: \"job\" is not a job id: \"abc\""));
  // Crockford's base 32 leaves out I, L, O and U.
  CHECK_THAT(
      refusal_of(wire::FrameType::signal, R"({"job":"01J9ZQ4M3V5B7N8P0R2S4T6W8U","signal":"INT"})"),
      Equals("signal: \"job\" is not a job id: \"01J9ZQ4M3V5B7N8P0R2S4T6W8U\""));
  CHECK_THAT(
      refusal_of(wire::FrameType::admitted, R"({"job":"a\nb","state":"running","existing":false})"),
      Equals("admitted: \"job\" is not a job id: \"a\\x0ab\""));
}

TEST_CASE("a signal outside INT, TERM and KILL is refused", "[remote][wire]") {
  CHECK_THAT(
      refusal_of(wire::FrameType::signal, R"({"job":"01J9ZQ4M3V5B7N8P0R2S4T6W8X","signal":"HUP"})"),
      Equals("signal: \"signal\" must be one of \"INT\", \"TERM\", \"KILL\", not \"HUP\""));
  CHECK_THAT(
      refusal_of(wire::FrameType::signal, R"({"job":"01J9ZQ4M3V5B7N8P0R2S4T6W8X","signal":9})"),
      Equals("signal: \"signal\" must be a string, not a number"));
}

TEST_CASE("an admit's argv, env and workdir are held to their rules", "[remote][wire]") {
  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with("[]")),
             Equals("admit: \"argv\" is empty; it needs at least the program to run"));
  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with(R"(["ls","a\u0000b"])")),
             Equals("admit: \"argv\"[1] contains a NUL byte"));
  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with(R"(["ls",1])")),
             Equals("admit: \"argv\"[1] must be a string, not a number"));
  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with(R"(["","x"])")),
             Equals("admit: \"argv\"[0], the program, is empty"));
  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with(R"("ls")")),
             Equals("admit: \"argv\" must be an array, not a string"));
  const std::string long_arg(wire::kMaxArgBytes + 1, 'a');
  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with(R"(["ls",")" + long_arg + "\"]")),
             Equals("admit: \"argv\"[1] is 131073 bytes, over the 131072-byte limit"));
  std::string many = "[";
  for (std::size_t i = 0; i <= wire::kMaxArgs; ++i) many += i == 0 ? "\"a\"" : ",\"a\"";
  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with(many + "]")),
             Equals("admit: \"argv\" has 4097 entries, over the limit of 4096"));

  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with(R"(["ls"])", R"({"1X":"v"})")),
             Equals("admit: \"env\" name \"1X\" is not of the form [A-Za-z_][A-Za-z0-9_]*"));
  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with(R"(["ls"])", R"({"A-B":"v"})")),
             ContainsSubstring("\"env\" name \"A-B\""));
  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with(R"(["ls"])", R"({"A":"\u0000"})")),
             Equals("admit: \"env\" value of A contains a NUL byte"));
  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with(R"(["ls"])", R"({"A":null})")),
             Equals("admit: \"env\" value of A must be a string, not null"));

  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with(R"(["ls"])", "{}", R"("/etc")")),
             Equals("admit: \"workdir\" \"/etc\": the path starts with '/'; paths are relative "
                    "to the tree"));
  // The manifest's rule for a path, so a workdir can only name a directory a tree can have.
  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with(R"(["ls"])", "{}", R"("a/../b")")),
             Equals("admit: \"workdir\" \"a/../b\": the path has a \"..\" component"));
  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with(R"(["ls"])", "{}", R"("a//b")")),
             EndsWith("the path has an empty component (\"//\")"));
  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with(R"(["ls"])", "{}", R"("a/")")),
             ContainsSubstring("the path ends with '/'"));
  CHECK_THAT(refusal_of(wire::FrameType::admit, admit_with(R"(["ls"])", "{}", R"(".")")),
             EndsWith("the path has a \".\" component"));
}

TEST_CASE("need names blobs by lowercase SHA-256 hex only", "[remote][wire]") {
  auto upper = sha256_hex("x");
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK_THAT(refusal_of(wire::FrameType::need, R"({"blobs":[")" + upper + "\"]}"),
             StartsWith("need: \"blobs\"[0] is not a SHA-256 in lowercase hex: \""));
  CHECK_THAT(refusal_of(wire::FrameType::need, R"({"blobs":[null]})"),
             Equals("need: \"blobs\"[0] must be a string, not null"));
}

TEST_CASE("admitted carries a position exactly when the job is queued", "[remote][wire]") {
  CHECK_THAT(refusal_of(wire::FrameType::admitted,
                        R"({"job":"01J9ZQ4M3V5B7N8P0R2S4T6W8X","state":"running","existing":false,
                     "position":2})"),
             Equals("admitted: \"position\" is sent only for a queued job, not a running one"));
  CHECK_THAT(
      refusal_of(wire::FrameType::admitted,
                 R"({"job":"01J9ZQ4M3V5B7N8P0R2S4T6W8X","state":"queued","existing":false})"),
      Equals("admitted: \"position\" is missing"));
}

TEST_CASE("end says exactly one of exit and signal", "[remote][wire]") {
  const std::string head = R"({"job":"01J9ZQ4M3V5B7N8P0R2S4T6W8X","last":0,"detail":"")";
  CHECK_THAT(refusal_of(wire::FrameType::end, head + R"(,"exit":0,"signal":9})"),
             Equals("end: has both \"exit\" and \"signal\"; a job ends one way"));
  CHECK_THAT(refusal_of(wire::FrameType::end, head + "}"),
             Equals("end: has neither \"exit\" nor \"signal\""));
  CHECK_THAT(refusal_of(wire::FrameType::end, head + R"(,"signal":65})"),
             Equals("end: \"signal\" must be an integer from 1 to 64, not 65"));
  CHECK_THAT(refusal_of(wire::FrameType::end, head + R"(,"exit":2147483648})"),
             Equals("end: \"exit\" must be an integer from -2147483648 to 2147483647, "
                    "not 2147483648"));
}

TEST_CASE("a request names a job exactly for show and kill", "[remote][wire]") {
  CHECK_THAT(
      refusal_of(wire::FrameType::request, R"({"op":"ps","job":"01J9ZQ4M3V5B7N8P0R2S4T6W8X"})"),
      Equals("request: \"job\" is not taken by \"ps\""));
  CHECK_THAT(refusal_of(wire::FrameType::request, R"({"op":"show"})"),
             Equals("request: \"job\" is missing"));
  CHECK_THAT(refusal_of(wire::FrameType::request, R"({"op":"rm"})"),
             Equals("request: \"op\" must be one of \"ps\", \"show\", \"kill\", \"gc\", \"df\", "
                    "not \"rm\""));
}

TEST_CASE("an output frame's header is held to its layout", "[remote][wire]") {
  CHECK_THAT(refusal_of(wire::FrameType::output, output_payload(kSequenceOne, '\3', "x")),
             Equals("output: stream byte 3 is neither 1 (stdout) nor 2 (stderr)"));
  CHECK_THAT(refusal_of(wire::FrameType::output, output_payload(kSequenceOne, '\0', "x")),
             Equals("output: stream byte 0 is neither 1 (stdout) nor 2 (stderr)"));
  CHECK_THAT(refusal_of(wire::FrameType::output, output_payload(std::string(8, '\0'), '\1', "x")),
             Equals("output: sequence numbers start at 1, not 0"));
  CHECK_THAT(refusal_of(wire::FrameType::output, output_payload(kSequenceOne, '\1', "")),
             Equals("output: a payload of 9 bytes has no data after its 9-byte header"));
}

TEST_CASE("a blob chunk's header is held to its layout", "[remote][wire]") {
  const auto blob = sha256_hex("x");
  CHECK_THAT(refusal_of(wire::FrameType::blob, blob),
             Equals("blob: a payload of 64 bytes is shorter than the 65-byte header"));
  CHECK_THAT(refusal_of(wire::FrameType::blob, std::string(64, 'g') + "\1"),
             StartsWith("blob: the name \"gggg"));
  CHECK_THAT(refusal_of(wire::FrameType::blob, blob + "\2data"),
             Equals("blob: flags byte 0x02 has bits set other than bit 0 (last)"));
  CHECK_THAT(refusal_of(wire::FrameType::blob, blob + std::string(1, '\0')),
             Equals("blob " + blob + ": a chunk before the last is empty"));
  CHECK_THAT(
      refusal_of(wire::FrameType::blob, blob + "\1" + std::string(wire::kMaxChunkBytes + 1, 'd')),
      Equals("blob: 1048577 bytes of data is over the 1048576-byte limit"));
}

TEST_CASE("the other binary payloads are held to their layouts", "[remote][wire]") {
  CHECK_THAT(refusal_of(wire::FrameType::manifest_part, ""),
             Equals("manifest_part: the payload has no flags byte"));
  CHECK_THAT(refusal_of(wire::FrameType::manifest_part, "\x81[]"),
             Equals("manifest_part: flags byte 0x81 has bits set other than bit 0 (last)"));
  CHECK_THAT(refusal_of(wire::FrameType::manifest_part, std::string(1, '\0')),
             Equals("manifest_part: a part before the last is empty"));
  CHECK_THAT(refusal_of(wire::FrameType::detach, "x"),
             Equals("detach: the payload must be empty, not 1 bytes"));
  CHECK_THAT(refusal_of(wire::FrameType::input, std::string(wire::kMaxChunkBytes + 1, 'd')),
             Equals("stdin: 1048577 bytes of data is over the 1048576-byte limit"));
}
