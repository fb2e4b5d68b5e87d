// Plugin files someone else could replace are refused before they are opened: the file, the
// file a link points at, and every directory above either.

#include "core/plugins/file_trust.hpp"
#include "core/plugins/registry.hpp"
#include "tests/unit/plugins/plugin_test_support.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using errand::plugins::load_plugin_file;
using errand::plugins::untrusted_plugin_file;
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

}  // namespace

TEST_CASE("a plugin owned by the daemon's user and writable only by it is loaded") {
  TempDir dir;
  const auto file = good_copy(dir.path());
  CHECK(untrusted_plugin_file(file).empty());
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
  CHECK_THAT(untrusted_plugin_file(group),
             ContainsSubstring("is writable by its group (mode 0775)"));
}

TEST_CASE("a plugin in a directory others may write is refused, unless the directory is sticky") {
  TempDir dir;
  const auto shared = dir.path() / "shared";
  fs::create_directory(shared);
  const auto file = good_copy(shared);
  fs::permissions(shared, fs::perms(0777));
  CHECK_THAT(untrusted_plugin_file(file),
             ContainsSubstring(shared.string() + " is writable by every user (mode 0777)"));
  // With the sticky bit, as /tmp has, others cannot rename or remove the daemon's file.
  REQUIRE(::chmod(shared.c_str(), 01777) == 0);
  CHECK(untrusted_plugin_file(file).empty());
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
  const auto refusal = untrusted_plugin_file(trusted / "linked.so");
  CHECK_THAT(refusal, StartsWith("refused " + (trusted / "linked.so").string()));
  CHECK_THAT(refusal, ContainsSubstring(loose.string() + " is writable by every user"));
}

TEST_CASE("a plugin file belonging to another user is refused") {
  if (::geteuid() != 0) SKIP("giving a file to another user needs root; CI runs as root");
  TempDir dir;
  const auto file = good_copy(dir.path());
  REQUIRE(::chown(file.c_str(), 65534, 65534) == 0);
  CHECK_THAT(untrusted_plugin_file(file),
             ContainsSubstring(file.string() + " belongs to uid 65534, neither root nor"));
}
