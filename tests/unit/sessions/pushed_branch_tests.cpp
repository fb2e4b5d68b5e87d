#include "core/sessions/pushed_branch.hpp"
#include "tests/support/temp_dir.hpp"

#include <catch2/catch_test_macros.hpp>
#include <fstream>

using errand::sessions::branch_of_head;
using errand::sessions::read_project_branch;
using errand::sessions::remote_url;

namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("HEAD names the branch, or says it is detached") {
  const auto named = branch_of_head("ref: refs/heads/feature/login\n");
  REQUIRE(named.has_value());
  CHECK(*named == "feature/login");
  const auto detached = branch_of_head("3f2a9c0d1e\n");
  REQUIRE_FALSE(detached.has_value());
  CHECK(detached.error().message.find("detached") != std::string::npos);
  CHECK_FALSE(branch_of_head("ref: refs/heads/\n").has_value());
  CHECK_FALSE(branch_of_head("ref: refs/tags/v1\n").has_value());
}

TEST_CASE("the origin url is read from the remote's own section only") {
  const std::string config =
      "[core]\n\turl = not-this\n"
      "[remote \"upstream\"]\n\turl = https://github.com/other/repo.git\n"
      "[Remote \"origin\"]\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
      "\turl = https://github.com/acme/widgets.git ; a comment\n"
      "[branch \"main\"]\n\tremote = origin\n";
  CHECK(remote_url(config, "origin") == "https://github.com/acme/widgets.git");
  CHECK(remote_url(config, "upstream") == "https://github.com/other/repo.git");
  CHECK(remote_url(config, "fork").empty());
  CHECK(remote_url("[remote \"origin\"]\n  URL = \"http://127.0.0.2:9/a/b.git\"\n", "origin") ==
        "http://127.0.0.2:9/a/b.git");
  // git keeps the last value of a key written twice.
  CHECK(remote_url("[remote \"origin\"]\nurl = one\nurl = two\n", "origin") == "two");
}

TEST_CASE("a project's branch and origin come from its .git files") {
  errand::test::TempDir dir;
  const auto project = dir.path() / "project";
  write(project / ".git/HEAD", "ref: refs/heads/fix-1\n");
  write(project / ".git/config", "[remote \"origin\"]\n\turl = https://github.com/acme/w.git\n");
  const auto read = read_project_branch(project);
  REQUIRE(read.has_value());
  CHECK(read->branch == "fix-1");
  CHECK(read->origin_url == "https://github.com/acme/w.git");

  write(project / ".git/config", "[core]\n\tbare = false\n");
  const auto no_origin = read_project_branch(project);
  REQUIRE_FALSE(no_origin.has_value());
  CHECK(no_origin.error().message.find("no `origin` remote") != std::string::npos);

  const auto not_git = read_project_branch(dir.path() / "elsewhere");
  REQUIRE_FALSE(not_git.has_value());
  CHECK(not_git.error().message.find("not a git repository") != std::string::npos);
}

TEST_CASE("a .git that is a link the agent planted is not followed") {
  errand::test::TempDir dir;
  const auto project = dir.path() / "project";
  write(dir.path() / "outside/HEAD", "ref: refs/heads/secret\n");
  std::filesystem::create_directories(project);
  std::filesystem::create_directory_symlink(dir.path() / "outside", project / ".git");
  const auto read = read_project_branch(project);
  REQUIRE_FALSE(read.has_value());
  CHECK(read.error().message.find("not a git repository") != std::string::npos);
}
