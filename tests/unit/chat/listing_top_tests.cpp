// !ls on a folder far larger than it shows: the same first entries as a full sort, the rest
// counted, and never more than the shown number of names held while reading.

#include "core/chat/listing_top.hpp"
#include "core/chat/project_files.hpp"
#include "tests/support/temp_dir.hpp"

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using Catch::Matchers::ContainsSubstring;
using namespace errand::chat;
using errand::test::TempDir;
using errand::test::write_file;

namespace {

std::string numbered(const char* prefix, int i) {
  char name[32];
  std::snprintf(name, sizeof name, "%s%05d", prefix, i);
  return name;
}

}  // namespace

TEST_CASE("!ls of a folder of thousands shows its first entries in order and counts the rest") {
  TempDir root;
  const auto project = root.path() / "project";
  const auto big = project / "big";
  // Written in an order unlike the listing's, so the kept entries must be chosen, not just
  // the first ones read; the folders must come first though their names sort last.
  constexpr int kFiles = 3000;
  constexpr int kFolders = 40;
  for (int i = kFiles - 1; i >= 0; --i)
    write_file(big / numbered("file-", (i * 7919) % kFiles), "");
  for (int i = 0; i < kFolders; ++i) std::filesystem::create_directory(big / numbered("zdir-", i));

  const auto listing = list_project_directory(project, "big");
  REQUIRE(listing.has_value());
  CHECK(listing->total == kFiles + kFolders);
  REQUIRE(listing->entries.size() == kMaxListedEntries);
  for (int i = 0; i < kFolders; ++i) {
    CHECK(listing->entries[i].name == numbered("zdir-", i));
    CHECK(listing->entries[i].type == ProjectEntry::Type::directory);
  }
  for (std::size_t i = kFolders; i < kMaxListedEntries; ++i)
    CHECK(listing->entries[i].name == numbered("file-", static_cast<int>(i) - kFolders));
  const auto text = format_listing(*listing);
  CHECK_THAT(text, ContainsSubstring("big/` (3040 entries)"));
  CHECK_THAT(text, ContainsSubstring("... and 2940 more not shown"));
}

TEST_CASE("the !ls collector never holds more names than it shows") {
  ListingTop top(kMaxListedEntries);
  std::vector<ProjectEntry> all;
  for (int i = 5000; i > 0; --i) {
    ProjectEntry e;
    e.name = numbered("entry-", (i * 31) % 5000);
    e.type = i % 9 == 0 ? ProjectEntry::Type::directory : ProjectEntry::Type::file;
    all.push_back(e);
    top.offer(std::move(e));
    REQUIRE(top.capacity() <= kMaxListedEntries);
  }
  CHECK(top.offered() == 5000);
  std::sort(all.begin(), all.end(), listed_before);
  all.resize(kMaxListedEntries);
  const auto kept = top.take();
  REQUIRE(kept.size() == kMaxListedEntries);
  for (std::size_t i = 0; i < kept.size(); ++i) CHECK(kept[i].name == all[i].name);
}
