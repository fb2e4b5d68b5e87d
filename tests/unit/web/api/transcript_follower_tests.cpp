// Following a thread's transcripts as the session page streams them: real files under a state
// directory, written by the real TranscriptWriter and, for torn and broken lines, by hand.

#include "core/chat/render/transcript.hpp"
#include "core/secrets/secret_scrubber.hpp"
#include "core/sessions/session_paths.hpp"
#include "core/web/api/transcript_follower.hpp"
#include "tests/support/manual_clock.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/temp_dir.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;
using errand::chat::TranscriptWriter;
using errand::sessions::SessionPaths;
using errand::test::ManualClock;
using errand::test::ok;
using errand::test::TempDir;
using errand::web::TranscriptFollower;

namespace {

struct StateDir {
  std::filesystem::path record_of(const std::string& session) const {
    auto record = SessionPaths::of(dir.path(), session).record;
    std::filesystem::create_directories(record);
    return record;
  }
  TranscriptWriter writer(const std::string& session) {
    auto opened = TranscriptWriter::open(record_of(session), secrets, clock);
    REQUIRE(ok(opened));
    return std::move(*opened);
  }
  // Bytes as they are, to tear a line or break one.
  void append_raw(const std::string& session, std::string_view bytes) const {
    const auto file = record_of(session) / errand::chat::kTranscriptFileName;
    const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    ::close(fd);
  }
  TempDir dir;
  ManualClock clock;
  errand::secrets::SecretScrubber secrets;
};

boost::json::object text_entry(std::string_view text) {
  return boost::json::object{{"type", "agent_text"}, {"text", text}};
}

std::vector<boost::json::object> next_of(TranscriptFollower& follower) {
  auto got = follower.next();
  REQUIRE(ok(got));
  return *got;
}

std::vector<std::string> texts(const std::vector<boost::json::object>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.emplace_back(e.at("entry").as_object().at("text").as_string());
  return out;
}

}  // namespace

TEST_CASE("a thread's history comes oldest session first, then lines as they are appended") {
  StateDir state;
  const auto started = state.clock.now();
  {
    auto first = state.writer("s-1");
    REQUIRE(ok(first.append(1, text_entry("one"))));
    state.clock.advance(2s);
    REQUIRE(ok(first.append(2, text_entry("two"))));
  }
  auto second = state.writer("s-2");
  REQUIRE(ok(second.append(1, text_entry("three"))));

  auto follower = TranscriptFollower::open(state.dir.path(), {"s-1", "s-2"});
  REQUIRE(ok(follower));
  const auto history = next_of(*follower);
  REQUIRE(history.size() == 3);
  CHECK(texts(history) == std::vector<std::string>{"one", "two", "three"});
  CHECK(history[0].at("session") == "s-1");
  CHECK(history[0].at("at").as_string() == errand::chat::format_utc(started));
  CHECK(history[0].at("turn") == 1);
  CHECK(history[1].at("turn") == 2);
  CHECK(history[2].at("session") == "s-2");
  CHECK(history[0].size() == 4);

  // Nothing new: nothing again, and nothing returned twice.
  CHECK(next_of(*follower).empty());

  // A line torn mid-write waits for its newline; a broken line is skipped and counted.
  REQUIRE(ok(second.append(2, text_entry("four"))));
  state.append_raw("s-2", "this is not json\n");
  state.append_raw("s-2", "{\"at\":\"2026-12-01T21:00:00.000Z\",\"turn\":3,\"entry\":{\"type\":");
  const auto before_tear = next_of(*follower);
  CHECK(texts(before_tear) == std::vector<std::string>{"four"});
  CHECK(follower->skipped() == 1);
  CHECK(next_of(*follower).empty());

  state.append_raw("s-2", "\"agent_text\",\"text\":\"five\"}}\n");
  const auto mended = next_of(*follower);
  REQUIRE(mended.size() == 1);
  CHECK(texts(mended) == std::vector<std::string>{"five"});
  CHECK(mended[0].at("at") == "2026-12-01T21:00:00.000Z");
  CHECK(mended[0].at("turn") == 3);
  CHECK(follower->skipped() == 1);

  // JSON that is not an entry is skipped too: no time, a negative turn, an entry not an object.
  state.append_raw("s-2", "{\"turn\":1,\"entry\":{}}\n");
  state.append_raw("s-2", "{\"at\":\"2026-12-01T21:00:00.000Z\",\"turn\":-1,\"entry\":{}}\n");
  state.append_raw("s-2", "{\"at\":\"2026-12-01T21:00:00.000Z\",\"turn\":1,\"entry\":\"x\"}\n");
  CHECK(next_of(*follower).empty());
  CHECK(follower->skipped() == 4);
}

TEST_CASE("a session that starts later in the thread is followed once added") {
  StateDir state;
  auto first = state.writer("s-1");
  REQUIRE(ok(first.append(1, text_entry("one"))));
  auto follower = TranscriptFollower::open(state.dir.path(), {"s-1"});
  REQUIRE(ok(follower));
  CHECK(texts(next_of(*follower)) == std::vector<std::string>{"one"});

  // Added before its transcript exists: empty until it is written.
  REQUIRE(ok(follower->add_session("s-2")));
  REQUIRE(ok(follower->add_session("s-1")));  // already followed: not read twice
  CHECK(next_of(*follower).empty());
  auto second = state.writer("s-2");
  REQUIRE(ok(second.append(1, text_entry("two"))));
  const auto later = next_of(*follower);
  REQUIRE(later.size() == 1);
  CHECK(later[0].at("session") == "s-2");
  CHECK(texts(later) == std::vector<std::string>{"two"});
}

TEST_CASE("a session id that could name another directory is refused") {
  StateDir state;
  for (const std::string bad : {"..", "../s-1", "a/b", ""}) {
    CAPTURE(bad);
    auto follower = TranscriptFollower::open(state.dir.path(), {bad});
    REQUIRE_FALSE(follower.has_value());
    CHECK(follower.error().kind == errand::sdk::Error::Kind::refused);
    CHECK_THAT(follower.error().message, ContainsSubstring("is not a session id"));
  }
}

TEST_CASE("a long history arrives in steps of at most 2 MiB, and an endless line is dropped") {
  StateDir state;
  const std::string filler(1000, 'x');
  {
    auto writer = state.writer("s-1");
    for (int i = 0; i < 3000; ++i) REQUIRE(ok(writer.append(1, text_entry(filler))));
  }
  {
    auto writer = state.writer("s-2");
    REQUIRE(ok(writer.append(1, text_entry("the next session"))));
  }
  auto follower = TranscriptFollower::open(state.dir.path(), {"s-1", "s-2"});
  REQUIRE(ok(follower));
  std::vector<std::string> sessions_in_order;
  std::size_t calls = 0;
  while (true) {
    const auto step = next_of(*follower);
    if (step.empty()) break;
    ++calls;
    CHECK(step.size() * 1000 < TranscriptFollower::kMaxBytesPerCall);
    for (const auto& e : step) sessions_in_order.emplace_back(e.at("session").as_string());
  }
  CHECK(calls >= 2);
  // Every line of the first session before any of the second, though it took several calls.
  REQUIRE(sessions_in_order.size() == 3001);
  CHECK(std::count(sessions_in_order.begin(), sessions_in_order.end() - 1, "s-1") == 3000);
  CHECK(sessions_in_order.back() == "s-2");

  // A line longer than one call may read never comes whole; it is dropped, and what follows it
  // still arrives.
  state.append_raw("s-1", std::string(TranscriptFollower::kMaxBytesPerCall + 10, 'y') + "\n");
  auto writer = state.writer("s-1");
  REQUIRE(ok(writer.append(2, text_entry("after"))));
  std::vector<std::string> seen;
  for (int i = 0; i < 3; ++i) {
    for (const auto& text : texts(next_of(*follower))) seen.push_back(text);
  }
  CHECK(seen == std::vector<std::string>{"after"});
  CHECK(follower->skipped() == 1);
}
