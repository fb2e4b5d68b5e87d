// errand's programs copied into the daemon's state directory, where an instance may mount them.

#include <sys/stat.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <filesystem>

#include "plugins/sandbox-incus/impl/placed_programs.hpp"
#include "tests/support/temp_dir.hpp"

using namespace errand::incus;
using Catch::Matchers::ContainsSubstring;
using errand::test::read_file;
using errand::test::TempDir;
using errand::test::write_file;
namespace fs = std::filesystem;

TEST_CASE("the tools directory's files are copied to <incus dir>/tools, mode 0755") {
  TempDir dir;
  fs::create_directories(dir / "lib/tools/sub");
  write_file(dir / "lib/tools/delegate", "program v1");
  fs::permissions(dir / "lib/tools/delegate", fs::perms::owner_read | fs::perms::owner_write);
  auto placed = place_tools(dir / "lib/tools", dir / "state/incus");
  REQUIRE(placed.has_value());
  CHECK(*placed == dir / "state/incus/tools");
  CHECK(read_file(*placed / "delegate") == "program v1");
  struct stat st {};
  REQUIRE(::stat((*placed / "delegate").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0755);
  REQUIRE(::stat(placed->c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0755);
  CHECK_FALSE(fs::exists(*placed / "sub"));
  CHECK_FALSE(fs::exists(*placed / "delegate.new"));

  // A rebuilt program replaces the copy at the next launch.
  write_file(dir / "lib/tools/delegate", "program v2");
  REQUIRE(place_tools(dir / "lib/tools", dir / "state/incus").has_value());
  CHECK(read_file(*placed / "delegate") == "program v2");
}

TEST_CASE("a tools directory that cannot be read is refused, naming it") {
  TempDir dir;
  auto refused = place_tools(dir / "missing", dir / "state/incus");
  REQUIRE_FALSE(refused.has_value());
  CHECK_THAT(refused.error().message,
             ContainsSubstring("could not read the tools directory " + (dir / "missing").string()));
}
