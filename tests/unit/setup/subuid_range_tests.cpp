// The podman account's subordinate id range, as scripts/prepare-podman-account chooses it: above
// every range already given out and never below 1000000. The script reads (and, for real,
// appends to) the files ERRAND_SUBUID_FILE and ERRAND_SUBGID_FILE name; a dry run only says
// which range it would give.
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_account.hpp"

#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include "tests/support/test_paths.hpp"

namespace fs = std::filesystem;

namespace {

errand::test::Finished prepare(const errand::test::TempDir& dir, const std::string& account,
                               bool dry_run) {
  std::vector<std::string> argv{errand::test::source_path("scripts/prepare-podman-account")};
  if (dry_run) argv.push_back("--dry-run");
  argv.push_back(account);
  return errand::test::run_to_end(
      argv,
      {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "ERRAND_SUBUID_FILE=" + (dir / "subuid").string(),
       "ERRAND_SUBGID_FILE=" + (dir / "subgid").string()},
      dir.path());
}

std::string test_account_name() {
  std::string why;
  const auto account = errand::test::find_test_account(why);
  INFO(why);
  REQUIRE(account);
  return account->name;
}

}  // namespace

TEST_CASE("a new range starts above every range already given out") {
  errand::test::TempDir dir;
  errand::test::write_file(dir / "subuid", "root:1000000:1000000000\nother:1001000000:65536\n");
  errand::test::write_file(dir / "subgid", "");
  const auto r = prepare(dir, "nobody", true);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("would: give nobody the ids 1001065536-1001131071 in " +
                   (dir / "subuid").string()) != std::string::npos);
  // With nothing given out, the floor.
  CHECK(r.out.find("would: give nobody the ids 1000000-1065535 in " + (dir / "subgid").string()) !=
        std::string::npos);
  // A dry run wrote nothing.
  CHECK(errand::test::read_file(dir / "subgid").empty());
}

TEST_CASE("an account that has a range keeps it; only the missing one is chosen") {
  errand::test::TempDir dir;
  const auto account = test_account_name();
  errand::test::write_file(dir / "subuid", account + ":2000000:65536\n");
  errand::test::write_file(dir / "subgid", "root:1000000:5\n");
  // The test account's runtime directory and store are prepared by scripts/setup, so only the
  // missing subgid range is a change.
  const auto dry = prepare(dir, account, true);
  INFO(dry.out << dry.err);
  REQUIRE(dry.exit_code == 0);
  CHECK(dry.out.find("already: " + account + " has subordinate ids in " +
                     (dir / "subuid").string()) != std::string::npos);
  CHECK(dry.out.find("would: give " + account + " the ids 1000005-1065540") != std::string::npos);
  CHECK(errand::test::read_file(dir / "subgid") == "root:1000000:5\n");
}
