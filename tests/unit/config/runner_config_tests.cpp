// The `runner` block (`errand serve`): its defaults, what it refuses, and what the runner reads
// out of it (runner_settings_from), which is what reaches the job scheduler and the listener.

#include "core/daemon/serve_runner_settings.hpp"
#include "tests/unit/config/config_test_support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace errand::config;
using namespace errand::config::testing;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("a configuration without a runner block gives the runner its defaults",
          "[config][runner]") {
  const auto runner = errand::daemon::runner_settings_from(effective_of(minimal_config()));
  CHECK(runner.scheduler.bounds.max_running == 1);
  CHECK(runner.scheduler.bounds.max_queued == 8);
  CHECK(runner.scheduler.allow_users.empty());
  CHECK(runner.scheduler.blob_max_bytes == std::uint64_t{10} << 30);
  CHECK(runner.socket == "/var/lib/errand/runner.sock");
  CHECK(runner.state_dir == "/var/lib/errand/runner");
}

TEST_CASE("the runner block's keys reach the scheduler and the listener",
          "[config][runner][key:runner.maxJobs][key:runner.maxQueued][key:runner.allowUsers]"
          "[key:runner.cacheSize][key:runner.socket]") {
  auto config = minimal_config();
  set(config, "runner",
      boost::json::object{{"maxJobs", 3},
                          {"maxQueued", 0},
                          {"allowUsers", boost::json::array{"alice", "bob"}},
                          {"cacheSize", "2g"},
                          {"socket", "/run/errand/runner.sock"}});
  const auto runner = errand::daemon::runner_settings_from(effective_of(config));
  CHECK(runner.scheduler.bounds.max_running == 3);
  CHECK(runner.scheduler.bounds.max_queued == 0);
  CHECK(runner.scheduler.allow_users == std::vector<std::string>{"alice", "bob"});
  CHECK(runner.scheduler.blob_max_bytes == std::uint64_t{2} << 30);
  CHECK(runner.socket == "/run/errand/runner.sock");
}

TEST_CASE("runner.maxJobs 0 is refused", "[config][runner]") {
  auto config = minimal_config();
  set(config, "runner.maxJobs", 0);
  const auto problem = only_problem(config);
  CHECK(problem.path == "runner.maxJobs");
  CHECK_THAT(problem.message, ContainsSubstring("1"));
}

TEST_CASE("a negative runner.maxQueued is refused", "[config][runner]") {
  auto config = minimal_config();
  set(config, "runner.maxQueued", -1);
  const auto problem = only_problem(config);
  CHECK(problem.path == "runner.maxQueued");
  CHECK_THAT(problem.message, ContainsSubstring("0"));
}

TEST_CASE("an unknown key in the runner block is refused", "[config][runner]") {
  auto config = minimal_config();
  set(config, "runner.maxJob", 2);
  const auto problem = only_problem(config);
  CHECK(problem.path == "runner.maxJob");
  CHECK_THAT(problem.message, ContainsSubstring("is not a setting"));
  CHECK_THAT(problem.message, ContainsSubstring("maxJobs"));
}

TEST_CASE("a relative runner.socket and a bad runner.cacheSize are refused", "[config][runner]") {
  auto config = minimal_config();
  set(config, "runner.socket", "runner.sock");
  set(config, "runner.cacheSize", "ten gigs");
  const auto problems = problems_of(config);
  CHECK(problems.size() == 2);
  problem_at(problems, "runner.socket");
  problem_at(problems, "runner.cacheSize");
}
