// fake-github, the program: what it prints is enough for a test outside the process to reach
// its API (TLS verified against the CA file it names) and its git listener.

#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/fakes/support/git_work_tree.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>

#include <csignal>
#include "tests/support/test_paths.hpp"

using namespace errand;

TEST_CASE("fake-github prints where it serves and serves there until it is stopped") {
  test::TempDir dir;
  test::ChildProcess program(
      {errand::test::build_path("tests/fakes/bin/fake-github"), "--repository", "octo/widgets",
       "--static-token", "ghp_program_token_for_tests", "--ca-file", (dir / "ca.pem").string()},
      {"PATH=/usr/bin:/bin", "TMPDIR=" + dir.path().string()}, dir.path());
  REQUIRE(program.wait_for_output("\n", std::chrono::seconds(20), false));
  const auto printed = boost::json::parse(program.out()).as_object();
  CHECK(printed.at("caFile").as_string() == (dir / "ca.pem").string());
  CHECK(test::read_file(dir / "ca.pem").find("BEGIN CERTIFICATE") != std::string::npos);
  const std::string api(printed.at("api").as_string());
  CHECK(api.rfind("https://127.0.0.2:", 0) == 0);
  const std::string git(printed.at("git").as_string());
  REQUIRE(git.rfind("http://127.0.0.2:", 0) == 0);

  test::GitWorkTree tree;
  tree.commit("README", "hello\n", "first");
  const std::string url = "http://x-access-token:ghp_program_token_for_tests@" +
                          git.substr(std::string("http://").size()) + "/octo/widgets.git";
  const auto pushed = tree.git({"push", url, "main"});
  INFO(pushed.err);
  CHECK(pushed.exit_code == 0);
  const auto branch =
      test::run_to_end({"/usr/bin/curl", "--silent", "--cacert", (dir / "ca.pem").string(), "-H",
                        "Authorization: token ghp_program_token_for_tests",
                        api + "/repos/octo/widgets/branches/main"},
                       {"PATH=/usr/bin:/bin"}, dir.path());
  CHECK(branch.out.find("\"name\":\"main\"") != std::string::npos);

  program.signal(SIGTERM);
  CHECK(program.wait_for(std::chrono::seconds(10)) == 0);
}
