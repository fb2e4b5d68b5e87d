#include "core/chat/render/transcript.hpp"
#include "core/secrets/secret_scrubber.hpp"
#include "tests/support/manual_clock.hpp"
#include "tests/support/temp_dir.hpp"

#include <sys/stat.h>

#include <boost/json.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <fstream>

using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;
using errand::chat::read_transcript;
using errand::chat::TranscriptWriter;
using errand::test::ManualClock;
using errand::test::TempDir;

TEST_CASE("the transcript is appended to, scrubbed, private, and read back in order") {
  TempDir record;
  ManualClock clock;
  errand::secrets::SecretScrubber secrets({"configured-secret-value"});
  secrets.add("errand-session-0123456789abcdef");
  {
    auto writer = TranscriptWriter::open(record.path(), secrets, clock);
    REQUIRE(writer.has_value());
    REQUIRE(
        writer->append(1, boost::json::object{{"kind", "prompt"}, {"text", "hello"}}).has_value());
    clock.advance(1500ms);
    REQUIRE(writer
                ->append(1, boost::json::object{{"kind", "tool"},
                                                {"output",
                                                 boost::json::array{"key configured-secret-value"}},
                                                {"errand-session-0123456789abcdef", 1}})
                .has_value());
  }
  struct stat st {};
  REQUIRE(::stat((record / "transcript.jsonl").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  // A later writer (a resumed session) appends after what is there.
  clock.advance(1min);
  {
    auto writer = TranscriptWriter::open(record.path(), secrets, clock);
    REQUIRE(writer.has_value());
    REQUIRE(writer->append(2, boost::json::string("second turn")).has_value());
  }
  const auto raw = errand::test::read_file(record / "transcript.jsonl");
  CHECK_THAT(raw, !ContainsSubstring("configured-secret-value"));
  CHECK_THAT(raw, !ContainsSubstring("errand-session-0123456789abcdef"));
  CHECK_THAT(raw, ContainsSubstring("\"at\":\"2025-03-14T09:00:00.000Z\""));

  const auto transcript = read_transcript(record.path()).value();
  REQUIRE(transcript.lines.size() == 3);
  CHECK(transcript.unreadable == 0);
  CHECK(transcript.lines[0].turn == 1);
  CHECK(transcript.lines[0].entry.at("text") == "hello");
  CHECK(transcript.lines[1].entry.at("output").at(0) == "key [redacted]");
  CHECK(transcript.lines[1].entry.as_object().contains("[redacted]"));
  CHECK(transcript.lines[1].at - transcript.lines[0].at == 1500ms);
  CHECK(transcript.lines[2].turn == 2);
  CHECK(transcript.lines[2].at == clock.now());

  const auto last_two = read_transcript(record.path(), 2).value();
  REQUIRE(last_two.lines.size() == 2);
  CHECK(last_two.lines[0].turn == 1);
  CHECK(last_two.lines[1].entry == "second turn");
}

TEST_CASE("a torn last line is skipped and counted, and a missing transcript is empty") {
  TempDir record;
  CHECK(read_transcript(record.path()).value().lines.empty());
  {
    std::ofstream out(record / "transcript.jsonl");
    out << R"({"at":"2025-03-14T09:00:00.000Z","turn":1,"entry":"ok"})"
        << "\n";
    out << R"({"at":"2025-03-14T09:00:01.000Z","turn":1,"ent)";
  }
  const auto transcript = read_transcript(record.path()).value();
  CHECK(transcript.lines.size() == 1);
  CHECK(transcript.unreadable == 1);
}

TEST_CASE("UTC timestamps round-trip to the millisecond") {
  const auto at =
      std::chrono::sys_days{std::chrono::year{2031} / 12 / 31} + 23h + 59min + 59s + 999ms;
  CHECK(errand::chat::format_utc(at) == "2031-12-31T23:59:59.999Z");
  CHECK(errand::chat::parse_utc("2031-12-31T23:59:59.999Z") == at);
  CHECK_FALSE(errand::chat::parse_utc("yesterday").has_value());
}

TEST_CASE("a tool's output that is not UTF-8 is kept readable, each stray byte as U+FFFD") {
  TempDir record;
  ManualClock clock;
  errand::secrets::SecretScrubber secrets({"configured-secret-value"});
  {
    auto writer = TranscriptWriter::open(record.path(), secrets, clock);
    REQUIRE(writer.has_value());
    REQUIRE(writer
                ->append(1, boost::json::object{{"type", "tool"},
                                                {"output",
                                                 "bin\xFF\xFE"
                                                 "ary configured-secret-value"},
                                                {"k\xC0", "v"}})
                .has_value());
  }
  const auto transcript = read_transcript(record.path()).value();
  CHECK(transcript.unreadable == 0);
  REQUIRE(transcript.lines.size() == 1);
  const auto& entry = transcript.lines[0].entry.as_object();
  CHECK(entry.at("output") ==
        "bin\xEF\xBF\xBD\xEF\xBF\xBD"
        "ary [redacted]");
  CHECK(entry.contains("k\xEF\xBF\xBD"));
}
