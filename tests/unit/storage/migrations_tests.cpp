#include "core/storage/database.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/storage/raw_sqlite.hpp"

#include <array>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <string_view>

using Catch::Matchers::ContainsSubstring;
using errand::storage::Database;
using errand::storage::Schema;
using errand::test::ok;
using errand::test::raw_exec;
using errand::test::raw_scalar;
using errand::test::TempDir;

namespace {

// Each step after the first depends on the one before it, so running them out of order or twice
// shows in the rows: step n leaves the values 1..n-1 in `log`, in order.
constexpr std::array<std::string_view, 4> kMigrationSteps{
    "CREATE TABLE log (n INTEGER NOT NULL UNIQUE)",
    "INSERT INTO log VALUES (1)",
    "INSERT INTO log SELECT max(n) + 1 FROM log",
    "INSERT INTO log SELECT max(n) + 1 FROM log",
};

Schema first_steps(std::size_t count) {
  return {"log.db", std::span<const std::string_view>(kMigrationSteps).first(count)};
}

}  // namespace

TEST_CASE("migrations apply in order, each once, and later ones on a later open", "[storage]") {
  TempDir dir;
  const auto file = dir / "log.db";
  REQUIRE(ok(Database::open(file, first_steps(3))));
  CHECK(raw_scalar(file, "PRAGMA user_version") == 3);
  CHECK(raw_scalar(file, "SELECT count(*) FROM log") == 2);
  CHECK(raw_scalar(file, "SELECT n FROM log WHERE rowid = 1") == 1);
  CHECK(raw_scalar(file, "SELECT n FROM log WHERE rowid = 2") == 2);

  REQUIRE(ok(Database::open(file, first_steps(3))));
  CHECK(raw_scalar(file, "SELECT count(*) FROM log") == 2);

  REQUIRE(ok(Database::open(file, first_steps(4))));
  CHECK(raw_scalar(file, "PRAGMA user_version") == 4);
  CHECK(raw_scalar(file, "SELECT count(*) FROM log") == 3);
  CHECK(raw_scalar(file, "SELECT max(n) FROM log") == 3);
}

TEST_CASE("a file at a newer schema version is refused and left as it was", "[storage]") {
  TempDir dir;
  const auto file = dir / "log.db";
  REQUIRE(ok(Database::open(file, first_steps(4))));

  auto refused = Database::open(file, first_steps(2));
  REQUIRE_FALSE(refused.has_value());
  CHECK_THAT(refused.error().message, ContainsSubstring("log.db has schema version 4"));
  CHECK_THAT(refused.error().message, ContainsSubstring("newer than version 2"));
  CHECK_THAT(refused.error().message, ContainsSubstring("move the file aside"));
  CHECK(raw_scalar(file, "PRAGMA user_version") == 4);
  CHECK(raw_scalar(file, "SELECT count(*) FROM log") == 3);
}

TEST_CASE("a failed step rolls back whole, leaving the version before it", "[storage]") {
  TempDir dir;
  const auto file = dir / "log.db";
  // The second step's first statement succeeds before its second fails; neither may remain.
  const std::array<std::string_view, 2> steps{
      "CREATE TABLE log (n INTEGER NOT NULL)",
      "INSERT INTO log VALUES (1); INSERT INTO no_such_table VALUES (1)",
  };
  auto failed = Database::open(file, Schema{"log.db", steps});
  REQUIRE_FALSE(failed.has_value());
  CHECK_THAT(failed.error().message,
             ContainsSubstring("log.db could not be migrated from schema version 1 to 2"));
  CHECK_THAT(failed.error().message, ContainsSubstring("no_such_table"));
  CHECK(raw_scalar(file, "PRAGMA user_version") == 1);
  CHECK(raw_scalar(file, "SELECT count(*) FROM log") == 0);
}

TEST_CASE("an unversioned file with tables of its own is migrated from version 0", "[storage]") {
  TempDir dir;
  const auto file = dir / "log.db";
  raw_exec(file, "CREATE TABLE unrelated (x)");
  REQUIRE(ok(Database::open(file, first_steps(2))));
  CHECK(raw_scalar(file, "PRAGMA user_version") == 2);
  CHECK(raw_scalar(file, "SELECT count(*) FROM sqlite_master WHERE name = 'unrelated'") == 1);
}
