// Plugin files someone else could replace are refused before they are opened: the file, the
// file a link points at, and every directory above either.

#include "core/plugins/file_trust.hpp"
#include "core/plugins/registry.hpp"
#include "tests/support/root_preparation.hpp"
#include "tests/unit/plugins/plugin_test_support.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <stdexcept>
#include <string>

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using errand::plugins::check_plugin_file_trust;
using errand::plugins::load_plugin_file;
using errand::plugins::testing::fixture_dir;
using errand::plugins::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// A copy of the good fixture in dir, with the given mode.
fs::path good_copy(const fs::path& dir, fs::perms mode = fs::perms(0755)) {
  const auto copy = dir / "fixture-good.so";
  fs::copy_file(fixture_dir() / "fixture-good.so", copy, fs::copy_options::overwrite_existing);
  fs::permissions(copy, mode);
  return copy;
}

// Giving a file away takes root: the suite's root parent makes this copy, owned by a uid that
// is neither root nor the test account, before the tests become that account.
std::string make_foreign_plugin(const errand::test::TestAccount& account) {
  const auto dir = errand::test::make_temp_dir("/tmp", "errand-foreign-plugin-");
  fs::permissions(dir, fs::perms(0755));
  const auto file = good_copy(dir);
  const uid_t other = account.uid == 65534 ? 65533 : 65534;
  if (::chown(file.c_str(), other, other) != 0) throw std::runtime_error("chown failed");
  return file.string();
}

const errand::test::RootPreparation foreign_plugin{
    "foreign plugin", make_foreign_plugin, [](const std::string& file) {
      std::error_code ec;
      fs::remove_all(fs::path(file).parent_path(), ec);
    }};

}  // namespace

TEST_CASE("a plugin owned by the daemon's user and writable only by it is loaded") {
  TempDir dir;
  const auto file = good_copy(dir.path());
  CHECK(check_plugin_file_trust(file).has_value());
  const auto record = load_plugin_file(file);
  CHECK(record.refusal.empty());
  CHECK(record.loaded);
}

TEST_CASE("a plugin file writable by every user or by its group is refused before it is opened") {
  TempDir dir;
  const auto world = good_copy(dir.path(), fs::perms(0666));
  const auto record = load_plugin_file(world);
  CHECK_FALSE(record.loaded);
  CHECK(record.name.empty());  // refused before the descriptor was read
  CHECK_THAT(record.refusal, StartsWith("refused " + world.string() + ": " + world.string() +
                                        " is writable by every user (mode 0666)"));
  CHECK_THAT(record.refusal, ContainsSubstring("chmod go-w"));

  const auto group = good_copy(dir.path(), fs::perms(0775));
  CHECK_THAT(check_plugin_file_trust(group).error().message,
             ContainsSubstring("is writable by its group (mode 0775)"));
}

TEST_CASE("a plugin in a directory others may write is refused, unless the directory is sticky") {
  TempDir dir;
  const auto shared = dir.path() / "shared";
  fs::create_directory(shared);
  const auto file = good_copy(shared);
  fs::permissions(shared, fs::perms(0777));
  CHECK_THAT(check_plugin_file_trust(file).error().message,
             ContainsSubstring(shared.string() + " is writable by every user (mode 0777)"));
  // With the sticky bit, as /tmp has, others cannot rename or remove the daemon's file.
  REQUIRE(::chmod(shared.c_str(), 01777) == 0);
  CHECK(check_plugin_file_trust(file).has_value());
}

TEST_CASE("a link to a plugin is judged by where it points as well") {
  TempDir dir;
  const auto loose = dir.path() / "loose";
  const auto trusted = dir.path() / "trusted";
  fs::create_directory(loose);
  fs::create_directory(trusted);
  const auto real = good_copy(loose);
  fs::permissions(loose, fs::perms(0777));
  fs::create_symlink(real, trusted / "linked.so");
  const auto refusal = check_plugin_file_trust(trusted / "linked.so").error().message;
  CHECK_THAT(refusal, StartsWith("refused " + (trusted / "linked.so").string()));
  CHECK_THAT(refusal, ContainsSubstring(loose.string() + " is writable by every user"));
}

TEST_CASE("a plugin file belonging to another user is refused") {
  const auto prepared = errand::test::prepared_as_root("foreign plugin");
  if (!prepared.ok) FAIL(prepared.why);
  const fs::path file = prepared.value;
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  REQUIRE(st.st_uid != 0);
  REQUIRE(st.st_uid != ::geteuid());
  CHECK_THAT(check_plugin_file_trust(file).error().message,
             ContainsSubstring(file.string() + " belongs to uid " + std::to_string(st.st_uid) +
                               ", neither root nor"));
}
