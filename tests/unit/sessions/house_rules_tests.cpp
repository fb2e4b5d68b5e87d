#include "core/sessions/house_rules.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/support/temp_dir.hpp"

#include <sys/stat.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <filesystem>
#include <fstream>

using Catch::Matchers::ContainsSubstring;
using errand::sessions::kHouseRulesMaxBytes;
using errand::sessions::read_house_rules;
using errand::sessions::read_rules_file;
namespace fs = std::filesystem;

namespace {

fs::path write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string refusal_of(const fs::path& path) {
  auto rules = read_rules_file(path);
  REQUIRE_FALSE(rules);
  CHECK_THAT(rules.error().message, ContainsSubstring("agent.rulesPath names " + path.string()));
  CHECK_THAT(rules.error().message, ContainsSubstring("remove the key"));
  return rules.error().message;
}

boost::json::object config_naming(const fs::path& path) {
  return {{"agent", boost::json::object{{"rulesPath", path.string()}}}};
}

}  // namespace

TEST_CASE("a readable rules file is read as it is") {
  errand::test::TempDir dir;
  const auto path = write_file(dir.path() / "rules.md", "Use British spelling. – ok\n");
  auto rules = read_rules_file(path);
  REQUIRE(rules);
  CHECK(rules->path == path);
  CHECK(rules->text == "Use British spelling. – ok\n");
}

TEST_CASE("a rules file that cannot be used is refused, naming the path and why") {
  errand::test::TempDir dir;
  CHECK_THAT(refusal_of(dir.path() / "missing.md"), ContainsSubstring("No such file"));
  CHECK_THAT(refusal_of(dir.path()), ContainsSubstring("it is a directory"));
  CHECK_THAT(refusal_of(write_file(dir.path() / "latin1.md", "caf\xe9\n")),
             ContainsSubstring("not UTF-8 text"));
  CHECK_THAT(refusal_of(write_file(dir.path() / "nul.md", std::string("a\0b", 3))),
             ContainsSubstring("NUL byte"));
  CHECK_THAT(
      refusal_of(write_file(dir.path() / "big.md", std::string(kHouseRulesMaxBytes + 1, 'x'))),
      ContainsSubstring("65537 bytes, and house rules may be at most 65536 bytes"));
  const auto fifo = dir.path() / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(refusal_of(fifo), ContainsSubstring("not a regular file"));
  const auto locked = write_file(dir.path() / "locked.md", "rules\n");
  fs::permissions(locked, fs::perms::none);
  CHECK_THAT(refusal_of(locked), ContainsSubstring("Permission denied"));
}

TEST_CASE("a rules file of exactly the limit is accepted") {
  errand::test::TempDir dir;
  const auto path = write_file(dir.path() / "full.md", std::string(kHouseRulesMaxBytes, 'y'));
  auto rules = read_rules_file(path);
  REQUIRE(rules);
  CHECK(rules->text.size() == kHouseRulesMaxBytes);
}

TEST_CASE("the configuration's rules are read each time they are asked for",
          "[key:agent.rulesPath]") {
  errand::test::TempDir dir;
  const auto path = write_file(dir.path() / "rules.md", "first\n");
  auto first = read_house_rules(config_naming(path));
  REQUIRE(first);
  REQUIRE(*first);
  CHECK((*first)->text == "first\n");
  write_file(path, "second\n");
  auto second = read_house_rules(config_naming(path));
  REQUIRE(second);
  REQUIRE(*second);
  CHECK((*second)->text == "second\n");
  fs::remove(path);
  CHECK_FALSE(read_house_rules(config_naming(path)));
}

TEST_CASE("no rulesPath means no rules") {
  auto rules = read_house_rules(boost::json::object{{"agent", boost::json::object{}}});
  REQUIRE(rules);
  CHECK_FALSE(*rules);
}

TEST_CASE("the rules ahead of a first prompt are marked off from the person's words") {
  const auto text = errand::sessions::house_rules_prompt_text("Keep commits small.");
  CHECK_THAT(text, ContainsSubstring("house rules"));
  CHECK_THAT(text, ContainsSubstring("<house-rules>\nKeep commits small.\n</house-rules>"));
}
