#include <boost/asio/io_context.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <fstream>
#include <functional>

#include "core/config/watcher.hpp"
#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

constexpr auto debounce = 300ms;
// How long a test waits for a callback it expects. Load only makes the watcher later, never
// earlier, so this is a limit far from the normal few hundred milliseconds, not a measure.
constexpr auto patience = 20s;

using Clock = std::chrono::steady_clock;

void write_watched(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::trunc);
  out << text;
}

// Runs the io_context, a handler at a time, until done() holds or patience runs out.
bool run_until(boost::asio::io_context& io, const std::function<bool()>& done) {
  const auto limit = Clock::now() + patience;
  while (!done() && Clock::now() < limit) {
    io.run_one_for(50ms);
    if (io.stopped()) io.restart();
  }
  return done();
}

// Runs what is ready now, without waiting: the watcher reads the events already queued.
void take_queued_events(boost::asio::io_context& io) {
  io.poll();
  io.restart();
}

// A second watcher of `file` in the same directory whose debounce is five times the one under
// test: the events it sees reach the watcher under test at the same moment, so by the time it
// has called back, the watcher under test would have called back too, had it been going to.
struct Witness {
  int changes = 0;
  ConfigWatcher watcher;
  Witness(boost::asio::io_context& io, const fs::path& file)
      : watcher(io.get_executor(), file, debounce * 5, [this] { ++changes; }) {}
};

}  // namespace

TEST_CASE("a file renamed over the configuration fires the callback once", "[config][watcher]") {
  TemporaryDirectory dir;
  const fs::path file = dir.path() / "config.json";
  write_watched(file, "{}");
  boost::asio::io_context io;
  int changes = 0;
  ConfigWatcher watcher(io.get_executor(), file, debounce, [&] { ++changes; });
  REQUIRE(watcher.start().has_value());
  Witness witness(io, file);
  REQUIRE(witness.watcher.start().has_value());
  const fs::path temporary = dir.path() / ".config.json.swp";
  write_watched(temporary, "{\"a\": 1}");
  fs::rename(temporary, file);
  REQUIRE(run_until(io, [&] { return witness.changes == 1; }));
  CHECK(changes == 1);
}

TEST_CASE("several writes in place within the debounce fire the callback once",
          "[config][watcher]") {
  TemporaryDirectory dir;
  const fs::path file = dir.path() / "config.json";
  write_watched(file, "{}");
  boost::asio::io_context io;
  int changes = 0;
  Clock::time_point called_at;
  ConfigWatcher watcher(io.get_executor(), file, debounce, [&] {
    ++changes;
    called_at = Clock::now();
  });
  REQUIRE(watcher.start().has_value());
  Witness witness(io, file);
  REQUIRE(witness.watcher.start().has_value());
  // Back to back, each taken by the watcher before the next, so every write re-arms the quiet
  // period: the burst lasts microseconds, far inside the debounce.
  Clock::time_point last_write;
  for (int i = 0; i < 3; ++i) {
    write_watched(file, "{\"round\": " + std::to_string(i) + "}");
    last_write = Clock::now();
    take_queued_events(io);
  }
  REQUIRE(run_until(io, [&] { return witness.changes == 1; }));
  CHECK(changes == 1);
  // Only once the file had been quiet for the debounce.
  CHECK(called_at - last_write >= debounce);
}

TEST_CASE("writes to another file in the directory are ignored", "[config][watcher]") {
  TemporaryDirectory dir;
  const fs::path file = dir.path() / "config.json";
  write_watched(file, "{}");
  boost::asio::io_context io;
  int changes = 0;
  ConfigWatcher watcher(io.get_executor(), file, debounce, [&] { ++changes; });
  REQUIRE(watcher.start().has_value());
  Witness witness(io, dir.path() / "config.json.bak");
  REQUIRE(witness.watcher.start().has_value());
  write_watched(dir.path() / "config.json.bak", "{}");
  REQUIRE(run_until(io, [&] { return witness.changes == 1; }));
  CHECK(changes == 0);
}

TEST_CASE("a stopped watcher calls back no more", "[config][watcher]") {
  TemporaryDirectory dir;
  const fs::path file = dir.path() / "config.json";
  write_watched(file, "{}");
  boost::asio::io_context io;
  int changes = 0;
  ConfigWatcher watcher(io.get_executor(), file, debounce, [&] { ++changes; });
  REQUIRE(watcher.start().has_value());
  write_watched(file, "{\"a\": 1}");
  REQUIRE(run_until(io, [&] { return changes == 1; }));
  watcher.stop();
  Witness witness(io, file);
  REQUIRE(witness.watcher.start().has_value());
  write_watched(file, "{\"a\": 2}");
  REQUIRE(run_until(io, [&] { return witness.changes == 1; }));
  CHECK(changes == 1);
}

TEST_CASE("a watcher on a missing directory says why it cannot start", "[config][watcher]") {
  TemporaryDirectory dir;
  boost::asio::io_context io;
  ConfigWatcher watcher(io.get_executor(), dir.path() / "absent/config.json", debounce, [] {});
  const auto started = watcher.start();
  REQUIRE(started.has_error());
  CHECK_THAT(started.error().message,
             Catch::Matchers::ContainsSubstring("No such file or directory"));
}
