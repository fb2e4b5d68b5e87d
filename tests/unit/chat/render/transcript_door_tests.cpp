// The transcript writer is the door to records/<session>/transcript.jsonl: what the session
// records raw comes out scrubbed, and each string is scrubbed once.

#include "core/chat/render/transcript.hpp"
#include "tests/support/manual_clock.hpp"
#include "tests/support/scrub_witness.hpp"
#include "tests/support/temp_dir.hpp"

#include <boost/json.hpp>
#include <catch2/catch_test_macros.hpp>
#include <fstream>
#include <sstream>

using errand::chat::read_transcript;
using errand::chat::TranscriptWriter;

TEST_CASE("a raw entry with secrets in values, keys and nested arrays is written scrubbed once") {
  errand::test::TempDir record;
  errand::test::ManualClock clock;
  const std::string secret = "transcript-door-secret";
  const std::string stand_in = "errand-session-" + std::string(64, 'c');
  errand::test::ScrubWitness secrets({secret});
  secrets.add(stand_in);
  {
    auto writer = TranscriptWriter::open(record.path(), secrets, clock);
    REQUIRE(writer.has_value());
    REQUIRE(writer
                ->append(3, boost::json::object{{"type", "tool"},
                                                {"title", "curl " + secret},
                                                {"output", boost::json::array{"got " + stand_in}},
                                                {stand_in, "as a key"}})
                .has_value());
  }
  std::ifstream in(record / "transcript.jsonl");
  std::stringstream file;
  file << in.rdbuf();
  const auto text = file.str();
  CHECK(text.find(secret) == std::string::npos);
  CHECK(text.find(stand_in) == std::string::npos);
  const auto transcript = read_transcript(record.path()).value();
  REQUIRE(transcript.lines.size() == 1);
  const auto& entry = transcript.lines[0].entry.as_object();
  CHECK(entry.at("title").as_string() == "curl [redacted]");
  CHECK(entry.at("output").as_array().at(0).as_string() == "got [redacted]");
  CHECK(entry.contains("[redacted]"));
  CHECK(secrets.rescrubbed().empty());
}
