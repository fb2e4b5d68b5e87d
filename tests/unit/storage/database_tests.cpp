#include "core/storage/database.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/storage/raw_sqlite.hpp"

#include <sys/stat.h>

#include <array>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <filesystem>
#include <string_view>

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using errand::sdk::Error;
using errand::sdk::Result;
using errand::storage::Connection;
using errand::storage::Database;
using errand::storage::Schema;
using errand::storage::Transaction;
using errand::test::ok;
using errand::test::raw_scalar;
using errand::test::TempDir;

namespace {

constexpr std::array<std::string_view, 1> kSteps{"CREATE TABLE item (name TEXT NOT NULL)"};
const Schema kSchema{"items.db", kSteps};

unsigned mode_of(const std::filesystem::path& p) {
  struct stat st {};
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::unique_ptr<Database> open_items(const std::filesystem::path& file) {
  auto db = Database::open(file, kSchema);
  REQUIRE(ok(db));
  return std::move(*db);
}

Result<void> insert(Connection& db, std::string_view name) {
  db.prepare("INSERT INTO item (name) VALUES (?)").bind(1, name).run();
  return {};
}

}  // namespace

TEST_CASE("a database file and its journal are private whatever the umask", "[storage]") {
  TempDir dir;
  const auto file = dir / "items.db";
  const auto old_umask = ::umask(0);
  {
    auto db = open_items(file);
    REQUIRE(ok(db->access([](Connection& c) { return insert(c, "a"); })));
    CHECK(mode_of(file) == 0600);
    CHECK(mode_of(dir / "items.db-wal") == 0600);
  }
  ::umask(old_umask);
  CHECK(raw_scalar(file, "SELECT count(*) FROM item") == 1);

  ::chmod(file.c_str(), 0644);
  { auto db = open_items(file); }
  CHECK(mode_of(file) == 0600);
}

TEST_CASE("a symbolic link at the database's path is refused, its target untouched", "[storage]") {
  TempDir dir;
  const auto target = dir / "elsewhere.db";
  { auto db = open_items(target); }
  const auto target_mode = mode_of(target);
  const auto target_size = std::filesystem::file_size(target);
  const auto link = dir / "items.db";
  std::filesystem::create_symlink(target, link);

  auto refused = Database::open(link, kSchema);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().kind == Error::Kind::refused);
  CHECK_THAT(refused.error().message, ContainsSubstring("is a symbolic link"));
  CHECK_THAT(refused.error().message, ContainsSubstring(link.string()));
  CHECK(std::filesystem::is_symlink(link));
  CHECK(mode_of(target) == target_mode);
  CHECK(std::filesystem::file_size(target) == target_size);

  SECTION("a dangling link creates nothing where it points") {
    const auto dangling = dir / "dangling.db";
    const auto nowhere = dir / "nowhere.db";
    std::filesystem::create_symlink(nowhere, dangling);
    auto also_refused = Database::open(dangling, kSchema);
    REQUIRE_FALSE(also_refused.has_value());
    CHECK_THAT(also_refused.error().message, ContainsSubstring("is a symbolic link"));
    CHECK_FALSE(std::filesystem::exists(nowhere));
  }
}

TEST_CASE("a database is opened in WAL mode", "[storage]") {
  TempDir dir;
  const auto file = dir / "items.db";
  { auto db = open_items(file); }
  // journal_mode is persistent for WAL, so a fresh connection reports it.
  CHECK(raw_scalar(file, "SELECT journal_mode = 'wal' FROM pragma_journal_mode") == 1);
}

TEST_CASE("a transaction rolls back unless it is committed", "[storage]") {
  TempDir dir;
  const auto file = dir / "items.db";
  auto db = open_items(file);

  REQUIRE(ok(db->access([](Connection& c) -> Result<void> {
    Transaction uncommitted(c);
    (void)insert(c, "dropped");
    return {};
  })));
  CHECK(raw_scalar(file, "SELECT count(*) FROM item") == 0);

  REQUIRE(ok(db->access([](Connection& c) -> Result<void> {
    Transaction committed(c);
    (void)insert(c, "kept");
    committed.commit();
    return {};
  })));
  CHECK(raw_scalar(file, "SELECT count(*) FROM item") == 1);

  // A failure half-way through in_transaction undoes the statements before it, and reaches the
  // caller as an Error naming the database.
  auto failed = db->access([](Connection& c) -> Result<void> {
    errand::storage::in_transaction(c, [&] {
      (void)insert(c, "undone");
      c.exec("INSERT INTO no_such_table VALUES (1)");
    });
    return {};
  });
  REQUIRE_FALSE(failed.has_value());
  CHECK_THAT(failed.error().message, StartsWith("items.db: "));
  CHECK_THAT(failed.error().message, ContainsSubstring("no_such_table"));
  CHECK(raw_scalar(file, "SELECT count(*) FROM item") == 1);
}

TEST_CASE("typed binds and reads round-trip text, integers and NULL", "[storage]") {
  TempDir dir;
  auto db = open_items(dir / "items.db");
  auto read = db->access([](Connection& c) -> Result<std::string> {
    c.exec("CREATE TABLE typed (t TEXT, i INTEGER, o INTEGER)");
    const std::string with_nul("a\0b", 3);
    c.prepare("INSERT INTO typed VALUES (?, ?, ?)")
        .bind(1, with_nul)
        .bind(2, std::int64_t{-9007199254740993})
        .bind(3, std::optional<std::int64_t>())
        .run();
    auto row = c.prepare("SELECT t, i, o FROM typed");
    REQUIRE(row.step());
    CHECK(row.integer(1) == -9007199254740993);
    CHECK(row.is_null(2));
    CHECK_FALSE(row.optional_integer(2).has_value());
    auto text = row.text(0);
    CHECK_FALSE(row.step());
    return text;
  });
  REQUIRE(ok(read));
  CHECK(*read == std::string("a\0b", 3));
}
