#include <catch2/catch_test_macros.hpp>

#include "common/disk_budget/disk_budget.hpp"

using namespace errand::common;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

const auto t0 = std::chrono::steady_clock::time_point{} + seconds(100);

DiskSample at(std::uint64_t growth, milliseconds after) {
  return {growth, t0 + after};
}

}  // namespace

TEST_CASE("the next disk check comes at half the projected time to the budget") {
  const std::uint64_t budget = 1000'000;
  // 100 000 bytes in 10 s: 900 000 left at 10 000 B/s is 90 s away; half is 45 s, capped at 30 s.
  CHECK(next_disk_check(budget, at(0, milliseconds(0)), at(100'000, seconds(10)), seconds(30)) ==
        seconds(30));
  // The same pace with a 60 s cap: 45 s.
  CHECK(next_disk_check(budget, at(0, milliseconds(0)), at(100'000, seconds(10)), seconds(60)) ==
        seconds(45));
  // 500 000 in 1 s: 400 000 left at 500 000 B/s is 0.8 s; half is 0.4 s, clamped up to 1 s.
  CHECK(next_disk_check(budget, at(100'000, milliseconds(0)), at(600'000, seconds(1)),
                        seconds(30)) == seconds(1));
  // 100 000 in 1 s with 800 000 left: 8 s away, check in 4 s.
  CHECK(next_disk_check(budget, at(100'000, milliseconds(0)), at(200'000, seconds(1)),
                        seconds(30)) == seconds(4));
}

TEST_CASE("no growth waits the longest interval; at or past the budget means stop now") {
  CHECK(next_disk_check(1000, at(500, milliseconds(0)), at(500, seconds(5)), seconds(30)) ==
        seconds(30));
  CHECK(next_disk_check(1000, at(600, milliseconds(0)), at(400, seconds(5)), seconds(30)) ==
        seconds(30));
  CHECK(next_disk_check(1000, at(500, milliseconds(0)), at(1000, seconds(5)), seconds(30)) ==
        milliseconds(0));
  CHECK(next_disk_check(1000, at(500, milliseconds(0)), at(5000, seconds(5)), seconds(30)) ==
        milliseconds(0));
}

TEST_CASE("a maximum interval under a second is honoured as the floor too") {
  CHECK(next_disk_check(1000'000, at(0, milliseconds(0)), at(900'000, milliseconds(100)),
                        milliseconds(500)) == milliseconds(500));
}
