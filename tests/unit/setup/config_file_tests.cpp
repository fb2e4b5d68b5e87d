// The configuration and directory steps for real, as root, in a temporary directory, for the
// test account: what they write, with which owner and mode, and that a second run changes
// nothing.
#include "core/setup/steps.hpp"

#include "tests/support/temp_dir.hpp"
#include "tests/support/test_account.hpp"
#include "tests/unit/setup/scratch_setup.hpp"

#include <sys/stat.h>

#include <catch2/catch_test_macros.hpp>
#include <sstream>
#include "tests/support/test_paths.hpp"

using namespace errand::setup;
namespace fs = std::filesystem;

namespace {

struct RealRun : testing::ScratchSetup {
  RealRun() : ScratchSetup(false, "") {
    std::string why;
    const auto account = errand::test::find_test_account(why);
    INFO(why);
    REQUIRE(account);
    context.account_name = account->name;
    context.account = find_account(account->name);
    context.host.config = root / "etc/errand/config.json";
    load_configuration(context);
    plan_new_configuration(context, "bailey", {});
    context.values.project_root = root / "srv/projects";
    context.values.state_dir = root / "state";
  }
};

// The same context reporting to another report, for a second run.
SetupContext rerun(const SetupContext& first, StepReport& report) {
  return SetupContext{.account_name = first.account_name,
                      .host = first.host,
                      .data = first.data,
                      .report = report,
                      .log = first.log,
                      .example = first.example,
                      .config = first.config,
                      .values = first.values,
                      .account = first.account,
                      .backend = first.backend,
                      .new_configuration = first.new_configuration};
}

struct stat stat_of(const fs::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st;
}

}  // namespace

TEST_CASE("the configuration is written from the example, 0640 root and the account's group") {
  RealRun run;
  step_config_file(run.context);
  const auto file = run.root / "etc/errand/config.json";
  const auto st = stat_of(file);
  CHECK((st.st_mode & 07777) == 0640);
  CHECK(st.st_uid == 0);
  CHECK(st.st_gid == run.context.account->gid);
  const auto written = errand::test::read_file(file);
  const auto example = errand::test::read_file(errand::test::source_path("config.example.json"));
  // The same text, its "$schema" pointing at the shipped schema instead of beside itself.
  CHECK(written.find("\"$schema\": \"" + errand::test::source_dir().string() +
                     "/config.schema.json\"") != std::string::npos);
  CHECK(written.size() ==
        example.size() - std::string("./").size() + errand::test::source_dir().string().size() + 1);
  CHECK(run.out.str().rfind("done: wrote " + file.string(), 0) == 0);

  // Never overwritten: an edited file stays as the operator left it.
  errand::test::write_file(file, "{ \"edited\": true }");
  std::ostringstream again_out;
  StepReport again(again_out, false);
  auto second = rerun(run.context, again);
  step_config_file(second);
  CHECK(again.changes() == 0);
  CHECK(errand::test::read_file(file) == "{ \"edited\": true }");
  // No temporary file is left beside it.
  CHECK(std::distance(fs::directory_iterator(file.parent_path()), {}) == 1);
}

TEST_CASE("projectRoot and stateDir are made the account's, both 0700, and a rerun is quiet") {
  RealRun run;
  step_directories(run.context);
  const auto projects = stat_of(run.root / "srv/projects");
  const auto state = stat_of(run.root / "state");
  CHECK(projects.st_uid == run.context.account->uid);
  CHECK((projects.st_mode & 07777) == 0700);
  CHECK(state.st_uid == run.context.account->uid);
  CHECK(state.st_gid == run.context.account->gid);
  CHECK((state.st_mode & 07777) == 0700);
  CHECK(run.report.changes() == 2);

  // A mode changed by hand is put back; the rest is left.
  ::chmod((run.root / "state").c_str(), 0755);
  std::ostringstream again_out;
  StepReport again(again_out, false);
  auto second = rerun(run.context, again);
  step_directories(second);
  CHECK(again.changes() == 1);
  CHECK((stat_of(run.root / "state").st_mode & 07777) == 0700);
  CHECK(again_out.str().find("already: projectRoot") != std::string::npos);
  CHECK(again_out.str().find("done: gave stateDir") != std::string::npos);
}

TEST_CASE("projects other accounts could read are made the account's alone, and said so") {
  RealRun run;
  step_directories(run.context);
  const auto open_project = run.root / "srv/projects/open";
  const auto private_project = run.root / "srv/projects/private";
  fs::create_directories(open_project);
  fs::create_directories(private_project);
  ::chmod(open_project.c_str(), 0755);
  ::chmod(private_project.c_str(), 0700);
  std::ostringstream again_out;
  StepReport again(again_out, false);
  auto second = rerun(run.context, again);
  step_directories(second);
  CHECK((stat_of(open_project).st_mode & 07777) == 0700);
  CHECK((stat_of(private_project).st_mode & 07777) == 0700);
  CHECK(again.changes() == 1);
  CHECK(again_out.str().find("done: made project " + open_project.string() +
                             " (mode 0755) the account's alone (mode 0700)") != std::string::npos);
}
