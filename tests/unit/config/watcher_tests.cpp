#include <boost/asio/io_context.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <fstream>
#include <thread>

#include "core/config/watcher.hpp"
#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

constexpr auto debounce = 300ms;

void write_file(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::trunc);
  out << text;
}

// Runs the io_context while `act` runs on another thread, then long enough for a debounced
// callback to have fired.
void run_while(boost::asio::io_context& io, const std::function<void()>& act) {
  std::thread actor(act);
  io.run_for(debounce * 5);
  actor.join();
  io.restart();
  io.run_for(debounce * 2);
  io.restart();
}

}  // namespace

TEST_CASE("a file renamed over the configuration fires the callback once", "[config][watcher]") {
  TemporaryDirectory dir;
  const fs::path file = dir.path() / "config.json";
  write_file(file, "{}");
  boost::asio::io_context io;
  int changes = 0;
  ConfigWatcher watcher(io.get_executor(), file, debounce, [&] { ++changes; });
  REQUIRE(watcher.start().has_value());
  run_while(io, [&] {
    const fs::path temporary = dir.path() / ".config.json.swp";
    write_file(temporary, "{\"a\": 1}");
    fs::rename(temporary, file);
  });
  CHECK(changes == 1);
}

TEST_CASE("several writes in place within the debounce fire the callback once",
          "[config][watcher]") {
  TemporaryDirectory dir;
  const fs::path file = dir.path() / "config.json";
  write_file(file, "{}");
  boost::asio::io_context io;
  int changes = 0;
  ConfigWatcher watcher(io.get_executor(), file, debounce, [&] { ++changes; });
  REQUIRE(watcher.start().has_value());
  run_while(io, [&] {
    for (int i = 0; i < 3; ++i) {
      write_file(file, "{\"round\": " + std::to_string(i) + "}");
      std::this_thread::sleep_for(debounce / 6);
    }
  });
  CHECK(changes == 1);
}

TEST_CASE("writes to another file in the directory are ignored", "[config][watcher]") {
  TemporaryDirectory dir;
  const fs::path file = dir.path() / "config.json";
  write_file(file, "{}");
  boost::asio::io_context io;
  int changes = 0;
  ConfigWatcher watcher(io.get_executor(), file, debounce, [&] { ++changes; });
  REQUIRE(watcher.start().has_value());
  run_while(io, [&] { write_file(dir.path() / "config.json.bak", "{}"); });
  CHECK(changes == 0);
}

TEST_CASE("a stopped watcher calls back no more", "[config][watcher]") {
  TemporaryDirectory dir;
  const fs::path file = dir.path() / "config.json";
  write_file(file, "{}");
  boost::asio::io_context io;
  int changes = 0;
  ConfigWatcher watcher(io.get_executor(), file, debounce, [&] { ++changes; });
  REQUIRE(watcher.start().has_value());
  run_while(io, [&] { write_file(file, "{\"a\": 1}"); });
  REQUIRE(changes == 1);
  watcher.stop();
  run_while(io, [&] { write_file(file, "{\"a\": 2}"); });
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
