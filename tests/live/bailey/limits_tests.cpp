// Per-session limits: file size (rlimit), processes and memory (cgroups), disk (measured).

#include <signal.h>

#include <catch2/catch_test_macros.hpp>

#include "tests/live/bailey/live_harness.hpp"

using namespace bailey_live;
using errand::sdk::LimitCause;

TEST_CASE("a file past sandbox.fileMax fails with EFBIG or SIGXFSZ ends the writer",
          "[live]"
          "[key:sandbox.fileMax]") {
  require_full_host();
  Harness h(boost::json::object{{"fileMax", "1m"}});
  SECTION("with SIGXFSZ ignored the write fails") {
    const auto r = h.run(h.spec({"fsize", std::to_string(2 << 20), "/workspace/big"}));
    INFO(r.out << r.launch_error);
    CHECK(r.exit.exit_code == 1);
    CHECK(contains(r.out, "errno=EFBIG"));
  }
  SECTION("by default the signal kills it, and the exit names the limit") {
    const auto r = h.run(h.spec({"fsize-signal", std::to_string(2 << 20), "/tmp/big"}));
    INFO(r.exit.detail);
    CHECK(r.exit.signal == SIGXFSZ);
    CHECK(r.exit.limit == LimitCause::file_size);
  }
}

TEST_CASE("forks past sandbox.pids fail with EAGAIN",
          "[live]"
          "[key:sandbox.pids]") {
  require_full_host();
  Harness h(boost::json::object{{"pids", 16}});
  const auto r = h.run(h.spec({"fork-until", "200"}));
  INFO(r.out << r.exit.detail);
  CHECK(r.exit.exit_code == 1);
  CHECK(contains(r.out, "errno=EAGAIN"));
  CHECK(r.exit.limit == LimitCause::pids);
  CHECK(r.exit.cleanup_complete);
}

TEST_CASE("memory past sandbox.memory is OOM-killed and reported as the memory limit",
          "[live]"
          "[key:sandbox.memory]") {
  require_full_host();
  Harness h(boost::json::object{{"memory", "64m"}});
  const auto r = h.run(h.spec({"memory", "512"}));
  INFO(r.out << r.exit.detail);
  CHECK(r.exit.signal == SIGKILL);
  CHECK(r.exit.limit == LimitCause::memory);
  CHECK(contains(r.exit.detail, "memory limit of 64m"));
  CHECK(r.exit.cleanup_complete);
}

TEST_CASE("a session past its disk budget is stopped and the exit says why",
          "[live]"
          "[key:sandbox.disk]"
          "[key:sandbox.diskCheckMs]"
          "[key:sandbox.gracePeriodMs]") {
  require_full_host();
  Harness h(boost::json::object{{"disk", "4m"}, {"diskCheckMs", 1000}, {"gracePeriodMs", 500}});
  const auto started = std::chrono::steady_clock::now();
  const auto r = h.run(h.spec({"grow", "/workspace/blob", "16"}));
  const auto took = std::chrono::steady_clock::now() - started;
  INFO(r.out << r.exit.detail << r.launch_error);
  CHECK(r.exit.limit == LimitCause::disk);
  CHECK(contains(r.exit.detail, "disk budget of 4m"));
  CHECK(r.exit.signal == SIGTERM);
  // The probe sleeps a minute after writing; only the budget can have ended it this soon.
  CHECK(took < std::chrono::seconds(10));
}
