#include "core/remote/jobs/blob_store.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/temp_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <filesystem>
#include <string>
#include <vector>

using Catch::Matchers::ContainsSubstring;
using errand::remote::BlobStore;
using errand::remote::EntryKind;
using errand::remote::Manifest;
using errand::remote::ManifestEntry;
using errand::remote::sha256_hex;
using errand::sdk::Error;
using errand::test::ok;
using errand::test::read_file;
using errand::test::TempDir;
using errand::test::write_file;

namespace {

ManifestEntry file_entry(std::string path, std::string_view content,
                         EntryKind kind = EntryKind::file) {
  return {std::move(path), kind, content.size(), sha256_hex(content), ""};
}

ManifestEntry link_entry(std::string path, std::string target) {
  return {std::move(path), EntryKind::symlink, 0, "", std::move(target)};
}

std::unique_ptr<BlobStore> open_store(const std::filesystem::path& dir) {
  auto store = BlobStore::open(dir);
  REQUIRE(ok(store));
  return std::move(*store);
}

void put_blob(BlobStore& store, std::string_view content) {
  REQUIRE(ok(store.put(sha256_hex(content), content)));
}

struct stat stat_of(const std::filesystem::path& p) {
  struct stat st {};
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st;
}

unsigned mode_bits(const std::filesystem::path& p) {
  return stat_of(p).st_mode & 07777;
}

bool is_empty_dir(const std::filesystem::path& p) {
  return std::filesystem::is_directory(p) && std::filesystem::is_empty(p);
}

// Sets a blob's last use to `seconds` after the epoch.
void set_last_use(const BlobStore& store, std::string_view content, time_t seconds) {
  const struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
  REQUIRE(::utimensat(AT_FDCWD, store.path_of(sha256_hex(content)).c_str(), times, 0) == 0);
}

}  // namespace

TEST_CASE("a blob is stored read-only under its hash", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  const auto hash = sha256_hex("hello, runner\n");
  CHECK_FALSE(store->has(hash));

  REQUIRE(ok(store->put(hash, "hello, runner\n")));

  const auto place = dir / "blobs" / hash.substr(0, 2) / hash;
  CHECK(store->path_of(hash) == place);
  CHECK(store->has(hash));
  CHECK(read_file(place) == "hello, runner\n");
  CHECK(mode_bits(place) == 0444);
  CHECK(is_empty_dir(dir / "blobs" / "tmp"));
  auto usage = store->usage();
  REQUIRE(ok(usage));
  CHECK(usage->blobs == 1);
  CHECK(usage->bytes == 14);
}

TEST_CASE("a blob arrives in chunks", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  const std::string content = "first chunk|second chunk|third";
  auto writer = store->begin(sha256_hex(content), content.size());
  REQUIRE(ok(writer));
  REQUIRE(ok(writer->write("first chunk|")));
  REQUIRE(ok(writer->write("second chunk|")));
  CHECK_FALSE(store->has(sha256_hex(content)));
  REQUIRE(ok(writer->write("third")));
  CHECK(writer->written() == content.size());
  REQUIRE(ok(writer->finish()));
  CHECK(read_file(store->path_of(sha256_hex(content))) == content);

  auto again = writer->write("more");
  REQUIRE_FALSE(again.has_value());
  CHECK_THAT(again.error().message, ContainsSubstring("already finished"));
}

TEST_CASE("content that hashes to another name is refused and leaves nothing", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  const auto claimed = sha256_hex("what the manifest said");
  auto refused = store->put(claimed, "what was sent instead");
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().kind == Error::Kind::refused);
  CHECK(refused.error().message ==
        "blob " + claimed + ": the content sent hashes to " + sha256_hex("what was sent instead"));
  CHECK_FALSE(store->has(claimed));
  CHECK(is_empty_dir(dir / "blobs" / "tmp"));
  CHECK(ok(store->usage()));
  CHECK(store->usage().value().blobs == 0);
}

TEST_CASE("more bytes than the manifest gives a blob are refused", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  const auto hash = sha256_hex("abc");
  auto writer = store->begin(hash, 3);
  REQUIRE(ok(writer));
  REQUIRE(ok(writer->write("ab")));
  auto refused = writer->write("cd");
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().kind == Error::Kind::refused);
  CHECK_THAT(refused.error().message, ContainsSubstring("more than the 3 bytes"));
  CHECK(is_empty_dir(dir / "blobs" / "tmp"));
  CHECK_FALSE(writer->finish().has_value());
  CHECK_FALSE(store->has(hash));
}

TEST_CASE("fewer bytes than the manifest gives a blob are refused", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  const auto hash = sha256_hex("abc");
  auto writer = store->begin(hash, 4);
  REQUIRE(ok(writer));
  REQUIRE(ok(writer->write("abc")));
  auto refused = writer->finish();
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().kind == Error::Kind::refused);
  CHECK_THAT(refused.error().message, ContainsSubstring("3 bytes were sent where the manifest"));
  CHECK_FALSE(store->has(hash));
  CHECK(is_empty_dir(dir / "blobs" / "tmp"));
}

TEST_CASE("a blob name that is not a SHA-256 is refused", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  for (const auto& bad :
       std::vector<std::string>{"../../etc/passwd", std::string(64, 'A'), std::string(63, 'a')}) {
    auto refused = store->begin(bad, 1);
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().kind == Error::Kind::refused);
  }
  CHECK(is_empty_dir(dir / "blobs" / "tmp"));
}

TEST_CASE("a writer dropped before finishing removes its temporary file", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  {
    auto writer = store->begin(sha256_hex("never finished"), 14);
    REQUIRE(ok(writer));
    REQUIRE(ok(writer->write("never")));
    CHECK_FALSE(is_empty_dir(dir / "blobs" / "tmp"));
  }
  CHECK(is_empty_dir(dir / "blobs" / "tmp"));
  CHECK_FALSE(store->has(sha256_hex("never finished")));
}

TEST_CASE("two writers of the same blob both succeed", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  const std::string content = "sent twice at once";
  auto first = store->begin(sha256_hex(content), content.size());
  auto second = store->begin(sha256_hex(content), content.size());
  REQUIRE(ok(first));
  REQUIRE(ok(second));
  REQUIRE(ok(first->write(content)));
  REQUIRE(ok(second->write(content)));
  REQUIRE(ok(first->finish()));
  REQUIRE(ok(second->finish()));
  CHECK(read_file(store->path_of(sha256_hex(content))) == content);
  CHECK(store->usage().value().blobs == 1);
  CHECK(is_empty_dir(dir / "blobs" / "tmp"));
}

TEST_CASE("what a crashed writer left in tmp is removed at open", "[remote][blobs]") {
  TempDir dir;
  { auto store = open_store(dir / "blobs"); }
  write_file(dir / "blobs" / "tmp" / (sha256_hex("x") + ".a1b2c3"), "half a blo");
  std::filesystem::create_directory(dir / "blobs" / "tmp" / "odd");
  auto store = open_store(dir / "blobs");
  CHECK(is_empty_dir(dir / "blobs" / "tmp"));
  CHECK(store->usage().value().blobs == 0);
}

TEST_CASE("missing names each absent blob once, in manifest order", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  put_blob(*store, "present");
  Manifest manifest{{
      file_entry("a.txt", "absent one"),
      file_entry("b.txt", "present"),
      link_entry("c", "a.txt"),
      file_entry("d/copy-of-a.txt", "absent one"),
      file_entry("e.sh", "absent two", EntryKind::executable),
  }};
  const auto missing = store->missing(manifest);
  CHECK(missing == std::vector<std::string>{sha256_hex("absent one"), sha256_hex("absent two")});

  put_blob(*store, "absent one");
  put_blob(*store, "absent two");
  CHECK(store->missing(manifest).empty());
}

TEST_CASE("materialise makes the tree with private copies of the blobs", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  const std::string script = "#!/bin/sh\necho hi\n";
  put_blob(*store, "top file\n");
  put_blob(*store, script);
  put_blob(*store, "deep\n");
  put_blob(*store, "");
  Manifest manifest{{
      file_entry("README", "top file\n"),
      file_entry("bin/run.sh", script, EntryKind::executable),
      link_entry("current", "src/a/b/deep.txt"),
      file_entry("empty", ""),
      file_entry("src/a/b/deep.txt", "deep\n"),
      file_entry("src/a/same-as-readme", "top file\n"),
      link_entry("src/up", "../README"),
  }};
  const auto workspace = dir / "workspace";

  // The modes are the manifest's whatever the runner's umask.
  const auto old_umask = ::umask(077);
  auto stats = store->materialise(manifest, workspace);
  ::umask(old_umask);
  REQUIRE(ok(stats));

  CHECK(stats->files == 5);
  CHECK(stats->symlinks == 2);
  CHECK(stats->directories == 4);  // bin, src, src/a, src/a/b
  CHECK(stats->bytes == 9 + script.size() + 5 + 0 + 9);
  CHECK(stats->reflinked + stats->copied == 5);

  CHECK(read_file(workspace / "README") == "top file\n");
  CHECK(read_file(workspace / "bin/run.sh") == script);
  CHECK(read_file(workspace / "src/a/b/deep.txt") == "deep\n");
  CHECK(read_file(workspace / "src/a/same-as-readme") == "top file\n");
  CHECK(read_file(workspace / "empty").empty());
  CHECK(std::filesystem::read_symlink(workspace / "current") == "src/a/b/deep.txt");
  CHECK(std::filesystem::read_symlink(workspace / "src/up") == "../README");
  CHECK(read_file(workspace / "current") == "deep\n");

  CHECK(mode_bits(workspace) == 0755);
  CHECK(mode_bits(workspace / "src/a/b") == 0755);
  CHECK(mode_bits(workspace / "README") == 0644);
  CHECK(mode_bits(workspace / "bin/run.sh") == 0755);
  CHECK(S_ISLNK(stat_of(workspace / "current").st_mode));
}

TEST_CASE("a workspace file is not the blob: writing it leaves the blob intact",
          "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  put_blob(*store, "original\n");
  Manifest manifest{{file_entry("f.txt", "original\n")}};
  const auto workspace = dir / "workspace";
  REQUIRE(ok(store->materialise(manifest, workspace)));

  const auto blob = store->path_of(sha256_hex("original\n"));
  const auto blob_stat = stat_of(blob);
  const auto file_stat = stat_of(workspace / "f.txt");
  CHECK(file_stat.st_ino != blob_stat.st_ino);
  CHECK(blob_stat.st_nlink == 1);

  // What a job could do to its own file: make it writable and overwrite it.
  REQUIRE(::chmod((workspace / "f.txt").c_str(), 0666) == 0);
  write_file(workspace / "f.txt", "tampered\n");
  CHECK(read_file(workspace / "f.txt") == "tampered\n");
  CHECK(read_file(blob) == "original\n");
  CHECK(mode_bits(blob) == 0444);
}

TEST_CASE("materialise refuses a missing blob, naming it, and makes nothing", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  put_blob(*store, "here");
  Manifest manifest{{file_entry("a", "here"), file_entry("b/c", "not sent")}};
  auto refused = store->materialise(manifest, dir / "workspace");
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().kind == Error::Kind::refused);
  CHECK_THAT(refused.error().message, ContainsSubstring(sha256_hex("not sent")));
  CHECK_THAT(refused.error().message, ContainsSubstring("b/c"));
  CHECK_FALSE(std::filesystem::exists(dir / "workspace"));
}

TEST_CASE("materialise refuses a workspace that exists already", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  put_blob(*store, "x");
  std::filesystem::create_directory(dir / "workspace");
  write_file(dir / "workspace" / "keep", "someone's");
  auto refused = store->materialise(Manifest{{file_entry("a", "x")}}, dir / "workspace");
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().kind == Error::Kind::refused);
  CHECK_THAT(refused.error().message, ContainsSubstring("exists already"));
  CHECK(read_file(dir / "workspace" / "keep") == "someone's");
  CHECK_FALSE(std::filesystem::exists(dir / "workspace" / "a"));
}

TEST_CASE("materialise never writes through a symlink the tree made", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  put_blob(*store, "planted");
  const auto outside = dir / "outside";
  std::filesystem::create_directory(outside);
  // Not a manifest check_manifest would pass; the workspace guards itself all the same.
  Manifest manifest{{link_entry("escape", outside.string()), file_entry("escape/file", "planted")}};
  auto refused = store->materialise(manifest, dir / "workspace");
  REQUIRE_FALSE(refused.has_value());
  CHECK_THAT(refused.error().message, ContainsSubstring("escape/file"));
  CHECK(std::filesystem::is_empty(outside));
  CHECK_FALSE(std::filesystem::exists(dir / "workspace"));

  auto dotdot = store->materialise(Manifest{{file_entry("a/../../b", "planted")}}, dir / "w2");
  REQUIRE_FALSE(dotdot.has_value());
  CHECK(dotdot.error().kind == Error::Kind::refused);
  CHECK_FALSE(std::filesystem::exists(dir / "w2"));
  CHECK_FALSE(std::filesystem::exists(dir / "b"));
}

TEST_CASE("collect removes the least recently used blobs first", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  put_blob(*store, "aaaaaaaaaa");
  put_blob(*store, "bbbbbbbbbb");
  put_blob(*store, "cccccccccc");
  set_last_use(*store, "aaaaaaaaaa", 1'000'000);
  set_last_use(*store, "bbbbbbbbbb", 3'000'000);
  set_last_use(*store, "cccccccccc", 2'000'000);

  auto nothing = store->collect(30);
  REQUIRE(ok(nothing));
  CHECK(nothing->blobs == 0);

  auto collected = store->collect(15);
  REQUIRE(ok(collected));
  CHECK(collected->blobs == 2);
  CHECK(collected->bytes == 20);
  CHECK_FALSE(store->has(sha256_hex("aaaaaaaaaa")));
  CHECK_FALSE(store->has(sha256_hex("cccccccccc")));
  CHECK(store->has(sha256_hex("bbbbbbbbbb")));
  CHECK(store->usage().value().bytes == 10);
}

TEST_CASE("collect keeps a pinned blob however old", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  put_blob(*store, "oldest");
  put_blob(*store, "newer");
  set_last_use(*store, "oldest", 1'000'000);
  set_last_use(*store, "newer", 2'000'000);
  {
    const auto pins = store->pin(Manifest{{file_entry("x", "oldest")}});
    auto collected = store->collect(0);
    REQUIRE(ok(collected));
    CHECK(collected->blobs == 1);
    CHECK(store->has(sha256_hex("oldest")));
    CHECK_FALSE(store->has(sha256_hex("newer")));
  }
  auto collected = store->collect(0);
  REQUIRE(ok(collected));
  CHECK(collected->blobs == 1);
  CHECK_FALSE(store->has(sha256_hex("oldest")));
}

TEST_CASE("materialising a blob counts as using it", "[remote][blobs]") {
  TempDir dir;
  auto store = open_store(dir / "blobs");
  put_blob(*store, "used today");
  put_blob(*store, "not used..");
  set_last_use(*store, "used today", 1'000'000);
  set_last_use(*store, "not used..", 2'000'000);
  REQUIRE(ok(store->materialise(Manifest{{file_entry("f", "used today")}}, dir / "workspace")));

  auto collected = store->collect(10);
  REQUIRE(ok(collected));
  CHECK(collected->blobs == 1);
  CHECK(store->has(sha256_hex("used today")));
  CHECK_FALSE(store->has(sha256_hex("not used..")));
}
