// The agents step with the real npm, into a temporary directory: the pinned agents installed
// once and found in place the second time, an unreachable registry failing the step with npm's
// own words and leaving nothing half-made, and the dry run. As root, like the step itself: the
// install comes from root's npm cache, which scripts/setup's `npm ci` of the same lockfile
// filled, so it does not need the registry (npm_config_prefer_offline).
#include "common/setup_steps/program_run.hpp"
#include "core/agent/bundled_agents.hpp"
#include "core/setup/steps.hpp"

#include "tests/support/scoped_env.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"
#include "tests/unit/setup/scratch_setup.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace errand::setup;
using errand::test::ScopedEnv;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

// The step's context, its install directory in a temporary one (its parent, opt/errand, is left
// for the step to make) and the shipped files the checkout's.
struct AgentsRun : testing::ScratchSetup {
  explicit AgentsRun(bool dry_run = false) : ScratchSetup(dry_run, "errand") {
    context.host.agents = root / "opt/errand/agents";
  }
  const fs::path& agents() const { return context.host.agents; }
  fs::path parent() const { return agents().parent_path(); }
};

struct stat stat_at(const fs::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st;
}

std::string log_of(const AgentsRun& run) {
  std::error_code ec;
  return fs::exists(run.context.log, ec) ? errand::test::read_file(run.context.log) : "";
}

// The names in a directory, for what a step left beside the install.
std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    names.push_back(entry.path().filename().string());
  return names;
}

// A previous install from another lockfile: what the step must not damage when it fails.
void plant_previous_install(const fs::path& agents) {
  fs::create_directories(agents / "node_modules/.bin");
  for (const auto& agent : errand::agent::bundled_agents())
    errand::test::write_file(agents / "node_modules/.bin" / std::string(agent.kind), "old\n");
  errand::test::write_file(agents / ".errand-lockfile-sha256", "0000 another lockfile\n");
}

void check_previous_install(const fs::path& agents) {
  for (const auto& agent : errand::agent::bundled_agents())
    CHECK(errand::test::read_file(agents / "node_modules/.bin" / std::string(agent.kind)) ==
          "old\n");
  CHECK(errand::test::read_file(agents / ".errand-lockfile-sha256") == "0000 another lockfile\n");
  CHECK(names_in(agents).size() == 2);
}

// npm pointed at a registry nothing answers on, with an empty cache to fall back on.
struct UnreachableRegistry {
  errand::test::TempDir cache;
  ScopedEnv registry{"npm_config_registry", "http://127.0.0.1:1/"};
  ScopedEnv cache_dir{"npm_config_cache", cache.path().c_str()};
  ScopedEnv retries{"npm_config_fetch_retries", "0"};
  ScopedEnv offline{"npm_config_offline", "false"};
  ScopedEnv prefer_offline{"npm_config_prefer_offline", "false"};
};

std::optional<StepFailed> failure_of(SetupContext& context) {
  try {
    step_agents(context);
  } catch (const StepFailed& failed) {
    return failed;
  }
  return std::nullopt;
}

void check_npm_failure(const std::optional<StepFailed>& maybe) {
  REQUIRE(maybe);
  const auto& failed = *maybe;
  INFO(failed.reason);
  CHECK(failed.step == "installing the bundled agents");
  CHECK(failed.reason.find("npm ci exited with") != npos);
  // npm's own error, from the end of its output.
  CHECK(failed.reason.find("ECONNREFUSED") != npos);
  CHECK(failed.reason.size() < 2400);
  CHECK(failed.remedy.find("npm config get registry") != npos);
  CHECK(failed.remedy.find("errand setup again") != npos);
}

}  // namespace

TEST_CASE("setup installs the bundled agents where the daemon looks for them") {
  CHECK(HostPaths{}.agents == fs::path(errand::agent::system_agents_root));
}

TEST_CASE("errand setup's agents step installs the pinned agents once") {
  AgentsRun run;
  const ScopedEnv prefer_offline("npm_config_prefer_offline", "true");
  step_agents(run.context);
  INFO(run.out.str() << log_of(run));
  CHECK(run.out.str() == "done: installed the bundled agents claude-agent-acp, codex-acp into " +
                             run.agents().string() + " (npm ci)\n");
  CHECK(log_of(run).find("# errand: running npm ci --prefix ") != npos);

  // Each agent's program, where the daemon looks for it, runnable by any account.
  for (const auto& agent : errand::agent::bundled_agents()) {
    const auto program = errand::agent::bundled_bin_dir(run.agents()) / std::string(agent.kind);
    INFO(program.string());
    CHECK(fs::is_symlink(program));
    CHECK((stat_at(program).st_mode & 0555) == 0555);
  }
  // The stamp is the lockfile's SHA-256, as sha256sum computes it.
  const auto lockfile = errand::test::source_path("agents/package-lock.json");
  const auto sum = capture_program({"sha256sum", lockfile.string()});
  REQUIRE(sum.exit_code == 0);
  CHECK(errand::test::read_file(run.agents() / ".errand-lockfile-sha256") ==
        sum.out.substr(0, 64) + "\n");
  // Root's, readable by all: the daemon's account reads it.
  for (const auto& dir : {run.parent(), run.agents(), run.agents() / "node_modules"}) {
    INFO(dir.string());
    CHECK(stat_at(dir).st_uid == ::geteuid());
    CHECK((stat_at(dir).st_mode & 07777) == 0755);
  }
  CHECK((stat_at(run.agents() / ".errand-lockfile-sha256").st_mode & 07777) == 0644);
  CHECK((stat_at(run.agents() / "package-lock.json").st_mode & 07777) == 0644);
  // Nothing beside it: the staging directory became the install.
  CHECK(names_in(run.parent()) == std::vector<std::string>{"agents"});

  // The second run finds it in place and runs no npm.
  const auto bin_before = stat_at(run.agents() / "node_modules/.bin");
  const auto log_before = log_of(run);
  std::ostringstream again_out;
  StepReport again(again_out, false);
  SetupContext second{.account_name = run.context.account_name,
                      .host = run.context.host,
                      .data = run.context.data,
                      .report = again,
                      .log = run.context.log,
                      .example = {},
                      .config = {},
                      .values = {},
                      .account = std::nullopt,
                      .backend = {},
                      .new_configuration = {}};
  step_agents(second);
  CHECK(again_out.str() ==
        "already: the bundled agents claude-agent-acp, codex-acp are installed "
        "in " +
            run.agents().string() + " from the shipped lockfile\n");
  CHECK(again.changes() == 0);
  CHECK(log_of(run) == log_before);
  const auto bin_after = stat_at(run.agents() / "node_modules/.bin");
  CHECK(bin_after.st_ino == bin_before.st_ino);
  CHECK(bin_after.st_mtim.tv_sec == bin_before.st_mtim.tv_sec);
  CHECK(bin_after.st_mtim.tv_nsec == bin_before.st_mtim.tv_nsec);
}

TEST_CASE(
    "an unreachable registry fails the agents step with npm's reason and leaves nothing "
    "installed") {
  AgentsRun run;
  const UnreachableRegistry unreachable;
  check_npm_failure(failure_of(run.context));
  CHECK_FALSE(fs::exists(run.agents()));
  // The staging directory is gone with what npm left in it.
  CHECK(names_in(run.parent()).empty());
  CHECK(run.report.changes() == 0);
}

TEST_CASE("an unreachable registry leaves the previous install of the agents as it was") {
  AgentsRun run;
  plant_previous_install(run.agents());
  const UnreachableRegistry unreachable;
  check_npm_failure(failure_of(run.context));
  check_previous_install(run.agents());
  CHECK(names_in(run.parent()) == std::vector<std::string>{"agents"});
}

TEST_CASE("a dry run of the agents step says what it would install and creates nothing") {
  SECTION("on a fresh host") {
    AgentsRun run(true);
    step_agents(run.context);
    CHECK(run.out.str() == "would: install the bundled agents claude-agent-acp, codex-acp into " +
                               run.agents().string() + " (npm ci)\n");
    CHECK(run.report.changes() == 1);
    CHECK(names_in(run.root.path()).empty());
  }
  SECTION("over an install from another lockfile") {
    AgentsRun run(true);
    plant_previous_install(run.agents());
    step_agents(run.context);
    CHECK(run.out.str() == "would: replace the bundled agents claude-agent-acp, codex-acp in " +
                               run.agents().string() + " with the shipped lockfile's (npm ci)\n");
    check_previous_install(run.agents());
    CHECK(names_in(run.parent()) == std::vector<std::string>{"agents"});
    CHECK_FALSE(fs::exists(run.context.log));
  }
}
