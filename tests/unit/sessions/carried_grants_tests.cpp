// The thread's `always` grants, kept in a session's record directory for the session resumed
// after it.

#include "core/sessions/carried_grants.hpp"
#include "tests/support/temp_dir.hpp"

#include <sys/stat.h>

#include <catch2/catch_test_macros.hpp>

namespace errand::sessions {
namespace {

TEST_CASE("kept grants are read back as written, and none without a file") {
  errand::test::TempDir dir;
  const auto none = read_carried_grants(dir.path());
  REQUIRE(none.has_value());
  CHECK(none->empty());

  const std::vector<CarriedGrant> kept{{"api.example.com", "200"}, {"*.example.org", "300"}};
  REQUIRE(write_carried_grants(dir.path(), kept).has_value());
  const auto read = read_carried_grants(dir.path());
  REQUIRE(read.has_value());
  CHECK(*read == kept);

  struct stat st {};
  REQUIRE(::stat((dir / "carried-grants.json").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE("a kept-grants file that is not a list of grants is an error naming the file") {
  errand::test::TempDir dir;
  errand::test::write_file(dir / "carried-grants.json", R"([{"host": "api.example.com"}])");
  const auto read = read_carried_grants(dir.path());
  REQUIRE(read.has_error());
  CHECK(read.error().message.find("carried-grants.json") != std::string::npos);

  errand::test::write_file(dir / "carried-grants.json", "not json");
  CHECK(read_carried_grants(dir.path()).has_error());
}

}  // namespace
}  // namespace errand::sessions
