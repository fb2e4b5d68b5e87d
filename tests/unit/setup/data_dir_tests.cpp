#include "common/setup_steps/data_dir.hpp"

#include "common/setup_steps/step_report.hpp"
#include "tests/support/temp_dir.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace errand::setup;
namespace fs = std::filesystem;

TEST_CASE("the data directory is ERRAND_DATA_DIR, else share/errand beside the executable") {
  CHECK(DataDir(nullptr, "/usr/bin/errand").root() == "/usr/share/errand");
  CHECK(DataDir("", "/opt/x/bin/errand").root() == "/opt/x/share/errand");
  CHECK(DataDir("/data", "/usr/bin/errand").root() == "/data");
}

TEST_CASE("a missing data file is refused naming the path and the variable") {
  errand::test::TempDir dir;
  errand::test::write_file(dir / "config.example.json", "{}");
  const DataDir named(dir.path().c_str(), "/usr/bin/errand");
  CHECK(named.require("config.example.json", "step") == dir / "config.example.json");
  try {
    named.require("scripts/start-incus", "preparing");
    FAIL("no refusal");
  } catch (const StepFailed& failed) {
    CHECK(failed.step == "preparing");
    CHECK(failed.reason.find((dir / "scripts/start-incus").string()) != std::string::npos);
    CHECK(failed.remedy.find("ERRAND_DATA_DIR") != std::string::npos);
  }
  try {
    DataDir(nullptr, dir / "bin/errand").require("config.example.json", "step");
    FAIL("no refusal");
  } catch (const StepFailed& failed) {
    CHECK(failed.remedy.find("ERRAND_DATA_DIR") != std::string::npos);
    CHECK(failed.remedy.find("reinstall") != std::string::npos);
  }
}
