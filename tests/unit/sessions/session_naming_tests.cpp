#include "core/sessions/session_naming.hpp"

#include <catch2/catch_test_macros.hpp>
#include <set>

namespace errand::sessions {
namespace {

TEST_CASE("a thread is named after the first non-blank line, whitespace collapsed") {
  CHECK(thread_name_from("\n  \n  fix   the\tfooter  \nand more") == "fix the footer");
  CHECK(thread_name_from("") == "session");
  CHECK(thread_name_from(" \n\t") == "session");
}

TEST_CASE("a thread name is at most 100 characters and never splits a UTF-8 sequence") {
  const std::string long_line(150, 'a');
  CHECK(thread_name_from(long_line).size() == 100);
  std::string accents;
  for (int i = 0; i < 120; ++i) accents += "\xC3\xA9";  // é, two bytes each
  const auto name = thread_name_from(accents);
  CHECK(name.size() == 200);
  CHECK(name.substr(name.size() - 2) == "\xC3\xA9");
}

TEST_CASE("a first word name: names the project and is taken off the prompt") {
  const auto named = project_named_in("website: fix the footer\nthen deploy");
  REQUIRE(named);
  CHECK(named->name == "website");
  CHECK(named->rest == "fix the footer\nthen deploy");
  CHECK(project_named_in("  my-app_2.0: go")->name == "my-app_2.0");
}

TEST_CASE("prose that only looks like a project name is left alone") {
  CHECK_FALSE(project_named_in("Note: capitals are not a project"));
  CHECK_FALSE(project_named_in("fix:the spacing is missing"));
  CHECK_FALSE(project_named_in("website:"));
  CHECK_FALSE(project_named_in("website:   "));
  CHECK_FALSE(project_named_in("../etc: escape"));
  CHECK_FALSE(project_named_in("a..b: dots"));
  CHECK_FALSE(project_named_in("-dash: first"));
  CHECK_FALSE(project_named_in(std::string(65, 'a') + ": too long"));
  CHECK_FALSE(project_named_in("no colon at all"));
}

TEST_CASE("session ids are fresh base-36 tokens, prefixed by the project when there is one") {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    const auto token = random_token();
    REQUIRE(token.size() == 12);
    CHECK(token.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz") == std::string::npos);
    seen.insert(token);
  }
  CHECK(seen.size() == 200);
  const auto id = new_session_id("website");
  CHECK(id.rfind("website-", 0) == 0);
  CHECK(id.size() == std::string("website-").size() + 12);
  CHECK(new_session_id("").size() == 12);
}

}  // namespace
}  // namespace errand::sessions
