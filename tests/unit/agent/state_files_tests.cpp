// Files errand writes into a state directory the agent can also write.

#include "core/agent/state_files.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/support/temp_dir.hpp"

#include <sys/stat.h>
#include <catch2/catch_test_macros.hpp>

using errand::agent::write_beneath;
namespace fs = std::filesystem;

TEST_CASE("a state file is written beneath the directory, its parents made") {
  errand::test::TempDir dir;
  REQUIRE(write_beneath(dir.path(), "kage/kage/config.toml", "a = 1\n"));
  CHECK(errand::test::read_file(dir / "kage/kage/config.toml") == "a = 1\n");
  REQUIRE(write_beneath(dir.path(), "kage/kage/config.toml", "b = 2\n", 0600));
  CHECK(errand::test::read_file(dir / "kage/kage/config.toml") == "b = 2\n");
  struct stat info {};
  REQUIRE(::stat((dir / "kage/kage/config.toml").c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
  CHECK(std::distance(fs::directory_iterator(dir / "kage/kage"), fs::directory_iterator()) == 1);
}

TEST_CASE("a symlink the agent planted on the way is refused, not followed") {
  errand::test::TempDir dir;
  fs::create_directories(dir / "elsewhere");
  fs::create_directories(dir / "state");
  fs::create_directory_symlink(dir / "elsewhere", dir / "state" / "kage");
  const auto written = write_beneath(dir / "state", "kage/kage/config.toml", "x");
  REQUIRE_FALSE(written);
  CHECK(written.error().message.find("a symlink or file stands where errand expects a directory") !=
        std::string::npos);
  CHECK(fs::is_empty(dir / "elsewhere"));
}

TEST_CASE("a symlink planted as the file itself is replaced, its target untouched") {
  errand::test::TempDir dir;
  fs::create_directories(dir / "state" / "kage" / "kage");
  errand::test::write_file(dir / "precious", "keep me");
  fs::create_symlink(dir / "precious", dir / "state" / "kage" / "kage" / "config.toml");
  REQUIRE(write_beneath(dir / "state", "kage/kage/config.toml", "fresh"));
  CHECK(errand::test::read_file(dir / "precious") == "keep me");
  CHECK_FALSE(fs::is_symlink(dir / "state" / "kage" / "kage" / "config.toml"));
  CHECK(errand::test::read_file(dir / "state" / "kage" / "kage" / "config.toml") == "fresh");
}

TEST_CASE("paths that leave the state directory are refused") {
  errand::test::TempDir dir;
  CHECK_FALSE(write_beneath(dir.path(), "../outside", "x"));
  CHECK_FALSE(write_beneath(dir.path(), "/etc/passwd", "x"));
  CHECK_FALSE(write_beneath(dir.path(), "a/../../b", "x"));
  CHECK_FALSE(fs::exists(dir.path().parent_path() / "outside"));
}
