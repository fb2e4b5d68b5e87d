// A dry run describes each step and changes nothing; these run as the test account against a
// temporary directory, so nothing outside it could be changed anyway, and the checks look at it.
#include "core/setup/steps.hpp"

#include "tests/support/temp_dir.hpp"
#include "tests/unit/setup/scratch_setup.hpp"

#include <catch2/catch_test_macros.hpp>
#include <sstream>
#include "tests/support/test_paths.hpp"

using namespace errand::setup;
namespace fs = std::filesystem;

namespace {

struct DryRun : testing::ScratchSetup {
  DryRun() : ScratchSetup(true, "errand-no-such-account") {
    context.host.config = root / "etc/config.json";
    context.host.log_dir = root / "log";
    context.host.systemd_running = root / "run/systemd/system";
    context.host.openrc_running = root / "run/openrc";
    load_configuration(context);
    plan_new_configuration(context, "podman", {});
    context.values.project_root = root / "srv/projects";
    context.values.state_dir = root / "state";
  }
  std::size_t entries() const {
    return static_cast<std::size_t>(
        std::distance(fs::recursive_directory_iterator(root.path()), {}));
  }
};

}  // namespace

TEST_CASE("a dry run of the file steps says what it would do and creates nothing") {
  DryRun run;
  step_log_dir(run.context);
  step_account(run.context);
  step_config_file(run.context);
  step_directories(run.context);
  step_service(run.context);
  const auto text = run.out.str();
  INFO(text);
  CHECK(text.find("would: create the log directory " + (run.root / "log").string()) !=
        std::string::npos);
  CHECK(text.find("would: create the system account errand-no-such-account") != std::string::npos);
  CHECK(text.find("would: write " + (run.root / "etc/config.json").string()) != std::string::npos);
  CHECK(text.find(" for the podman backend (mode 0640") != std::string::npos);
  CHECK(text.find("would: create projectRoot " + (run.root / "srv/projects").string()) !=
        std::string::npos);
  CHECK(text.find("would: create stateDir " + (run.root / "state").string() +
                  " for errand-no-such-account (mode 0700)") != std::string::npos);
  CHECK(text.find("no init system manages services") != std::string::npos);
  CHECK(text.find("done:") == std::string::npos);
  CHECK(run.report.changes() == 5);
  CHECK(run.entries() == 0);
}

TEST_CASE("a configuration that is there is never overwritten, dry run or not") {
  DryRun run;
  fs::create_directories(run.root / "etc");
  errand::test::write_file(run.root / "etc/config.json", "{ \"mine\": true }");
  step_config_file(run.context);
  CHECK(run.out.str().find("already: the configuration " +
                           (run.root / "etc/config.json").string()) != std::string::npos);
  CHECK(errand::test::read_file(run.root / "etc/config.json") == "{ \"mine\": true }");
}
