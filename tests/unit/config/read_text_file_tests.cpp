// read_text_file: the whole of a regular file, or a sentence naming the file and the reason,
// with a kind a caller may branch on (a missing file is not an unreadable one).

#include "core/config/read_text_file.hpp"
#include "tests/support/temp_dir.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <string>

using Catch::Matchers::ContainsSubstring;
using errand::config::read_text_file;
using errand::sdk::Error;

TEST_CASE("a regular file is read whole") {
  errand::test::TempDir dir;
  const std::string text = "{\"a\": 1}\n" + std::string(40000, ' ') + "\n";
  errand::test::write_file(dir / "config.json", text);
  const auto read = read_text_file(dir / "config.json");
  REQUIRE(read.has_value());
  CHECK(*read == text);
}

TEST_CASE("a missing file is not_found and named in the message") {
  errand::test::TempDir dir;
  const auto read = read_text_file(dir / "absent.json");
  REQUIRE(read.has_error());
  CHECK(read.error().kind == Error::Kind::not_found);
  CHECK(read.error().message ==
        "cannot read " + (dir / "absent.json").string() + ": No such file or directory");
}

TEST_CASE("a directory is refused with what to name instead") {
  errand::test::TempDir dir;
  const auto read = read_text_file(dir.path());
  REQUIRE(read.has_error());
  CHECK(read.error().kind == Error::Kind::refused);
  CHECK_THAT(read.error().message, ContainsSubstring("it is not a regular file; name the file"));
}

TEST_CASE("a file far too large for a configuration is refused, not read") {
  errand::test::TempDir dir;
  errand::test::write_file(dir / "huge.json", std::string(16 * 1024 * 1024 + 1, 'x'));
  const auto read = read_text_file(dir / "huge.json");
  REQUIRE(read.has_error());
  CHECK(read.error().kind == Error::Kind::refused);
  CHECK_THAT(read.error().message, ContainsSubstring("too large to be a configuration file"));
}
