#include "core/remote/snapshot/manifest.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/result_printing.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <limits>
#include <string>
#include <string_view>

using Catch::Matchers::ContainsSubstring;
using errand::remote::check_manifest;
using errand::remote::decode_manifest;
using errand::remote::encode_manifest;
using errand::remote::EntryKind;
using errand::remote::kManifestMaxEntries;
using errand::remote::Manifest;
using errand::remote::manifest_hash;
using errand::remote::ManifestEntry;
using errand::remote::sha256_hex;
using errand::test::ok;

namespace {

const std::string kHashA = sha256_hex("a");
const std::string kHashB = sha256_hex("b");

ManifestEntry file_entry(std::string path, std::uint64_t size, std::string hash = kHashA) {
  return {std::move(path), EntryKind::file, size, std::move(hash), {}};
}

ManifestEntry link_entry(std::string path, std::string target) {
  return {std::move(path), EntryKind::symlink, 0, {}, std::move(target)};
}

// The decode refusal's sentence; fails the test when the text was accepted.
std::string refusal_of(std::string_view text) {
  const auto decoded = decode_manifest(text);
  REQUIRE_FALSE(decoded);
  CHECK(decoded.error().kind == errand::sdk::Error::Kind::refused);
  return decoded.error().message;
}

std::string check_refusal_of(const Manifest& manifest) {
  const auto checked = check_manifest(manifest);
  REQUIRE_FALSE(checked);
  return checked.error().message;
}

// One row of the encoding: a file named path with content "a".
std::string row(std::string_view path) {
  return "[\"" + std::string(path) + "\",\"f\",1,\"" + kHashA + "\"]";
}

std::string link_row(std::string_view path, std::string_view target) {
  return "[\"" + std::string(path) + "\",\"l\",0,\"" + std::string(target) + "\"]";
}

}  // namespace

TEST_CASE("a manifest encodes to the same bytes and decodes back to itself", "[remote][manifest]") {
  Manifest manifest;
  manifest.entries = {
      file_entry("bin/run", 12),
      file_entry("odd \"name\" \\ with\ttab", 3, kHashB),
      link_entry("src/current", "../bin/run"),
      file_entry("src/ünïcødé.txt", 0),
  };
  manifest.entries[0].kind = EntryKind::executable;
  REQUIRE(ok(check_manifest(manifest)));

  const std::string text = encode_manifest(manifest);
  CHECK(text == "[[\"bin/run\",\"x\",12,\"" + kHashA +
                    "\"],"
                    "[\"odd \\\"name\\\" \\\\ with\\u0009tab\",\"f\",3,\"" +
                    kHashB +
                    "\"],"
                    "[\"src/current\",\"l\",0,\"../bin/run\"],"
                    "[\"src/ünïcødé.txt\",\"f\",0,\"" +
                    kHashA + "\"]]");
  CHECK(encode_manifest(manifest) == text);

  const auto decoded = decode_manifest(text);
  REQUIRE(ok(decoded));
  CHECK(*decoded == manifest);
  CHECK(encode_manifest(*decoded) == text);
}

TEST_CASE("an empty manifest is an empty array", "[remote][manifest]") {
  CHECK(encode_manifest(Manifest{}) == "[]");
  const auto decoded = decode_manifest(" [ ] ");
  REQUIRE(ok(decoded));
  CHECK(decoded->entries.empty());
}

TEST_CASE("the manifest hash is the SHA-256 of the encoding and follows every byte",
          "[remote][manifest]") {
  Manifest manifest;
  manifest.entries = {file_entry("a", 1), link_entry("b", "a")};
  const auto hash = manifest_hash(manifest);
  CHECK(hash == sha256_hex(encode_manifest(manifest)));
  CHECK(manifest_hash(manifest) == hash);

  // Whitespace in the text the caller sent does not change the hash of what it means.
  const auto decoded =
      decode_manifest(" [ [\"a\", \"f\", 1, \"" + kHashA + "\"] , [\"b\",\"l\",0,\"a\"] ] \n");
  REQUIRE(ok(decoded));
  CHECK(manifest_hash(*decoded) == hash);

  Manifest changed = manifest;
  changed.entries[0].size = 2;
  CHECK(manifest_hash(changed) != hash);
  changed = manifest;
  changed.entries[0].kind = EntryKind::executable;
  CHECK(manifest_hash(changed) != hash);
}

TEST_CASE("a manifest counts its files and their bytes, not its symlinks", "[remote][manifest]") {
  Manifest manifest;
  manifest.entries = {file_entry("a", 10), file_entry("b", 32), link_entry("c", "a")};
  manifest.entries[1].kind = EntryKind::executable;
  CHECK(manifest.file_count() == 2);
  CHECK(manifest.total_bytes() == 42);

  manifest.entries[1].size = std::numeric_limits<std::uint64_t>::max();
  CHECK(manifest.total_bytes() == std::numeric_limits<std::uint64_t>::max());
}

TEST_CASE("text that is not an array of entry rows is refused", "[remote][manifest]") {
  CHECK_THAT(refusal_of(""), ContainsSubstring("not JSON"));
  CHECK_THAT(refusal_of("[[\"a\",\"f\",1,\"" + kHashA + "\"]"), ContainsSubstring("not JSON"));
  CHECK_THAT(refusal_of("[[[\"deep\"]]]"), ContainsSubstring("not JSON of at most two levels"));
  CHECK_THAT(refusal_of("[\"\xff\"]"), ContainsSubstring("not JSON"));
  CHECK_THAT(refusal_of("{\"a\":1}"), ContainsSubstring("not a JSON array"));
  CHECK_THAT(refusal_of("\"text\""), ContainsSubstring("not a JSON array"));
  CHECK_THAT(refusal_of("[\"a\"]"),
             ContainsSubstring("manifest entry 0: not an array of 4 elements"));
  CHECK_THAT(refusal_of("[" + row("a") + ",[\"b\",\"f\",1]]"),
             ContainsSubstring("manifest entry 1: not an array of 4 elements"));
  CHECK_THAT(refusal_of("[[\"a\",\"f\",1,\"" + kHashA + "\",5]]"),
             ContainsSubstring("manifest entry 0: not an array of 4 elements"));
}

TEST_CASE("a row with a field of the wrong type or an unknown kind is refused, naming it",
          "[remote][manifest]") {
  CHECK_THAT(refusal_of("[[7,\"f\",1,\"" + kHashA + "\"]]"),
             ContainsSubstring("manifest entry 0: the path is not a string"));
  CHECK_THAT(refusal_of("[[\"a\",1,1,\"" + kHashA + "\"]]"),
             ContainsSubstring("manifest entry 0 (\"a\"): the kind is not a string"));
  CHECK_THAT(refusal_of("[[\"a\",\"d\",1,\"" + kHashA + "\"]]"),
             ContainsSubstring("manifest entry 0 (\"a\"): the kind \"d\" is not"));
  CHECK_THAT(refusal_of("[[\"a\",\"f\",-1,\"" + kHashA + "\"]]"),
             ContainsSubstring("manifest entry 0 (\"a\"): the size is not a whole number"));
  CHECK_THAT(refusal_of("[[\"a\",\"f\",1.5,\"" + kHashA + "\"]]"),
             ContainsSubstring("the size is not a whole number"));
  CHECK_THAT(refusal_of("[[\"a\",\"f\",\"1\",\"" + kHashA + "\"]]"),
             ContainsSubstring("the size is not a whole number"));
  CHECK_THAT(refusal_of("[[\"a\",\"f\",1,null]]"),
             ContainsSubstring("manifest entry 0 (\"a\"): the fourth element"));

  // The largest size there is still decodes.
  const auto largest = decode_manifest("[[\"a\",\"f\",18446744073709551615,\"" + kHashA + "\"]]");
  REQUIRE(ok(largest));
  CHECK(largest->entries[0].size == std::numeric_limits<std::uint64_t>::max());
  CHECK_THAT(refusal_of("[[\"a\",\"f\",18446744073709551616,\"" + kHashA + "\"]]"),
             ContainsSubstring("the size is not a whole number"));
}

TEST_CASE("a file's hash must be 64 lowercase hex digits and a symlink's size 0",
          "[remote][manifest]") {
  std::string upper = kHashA;
  upper[0] = 'A';
  upper[1] = 'B';
  CHECK_THAT(refusal_of("[[\"a\",\"f\",1,\"" + upper + "\"]]"),
             ContainsSubstring("manifest entry 0 (\"a\"): the file's sha256"));
  CHECK_THAT(refusal_of("[[\"a\",\"x\",1,\"abc\"]]"),
             ContainsSubstring("is not 64 lowercase hexadecimal digits"));
  CHECK_THAT(refusal_of("[" + row("a") + ",[\"b\",\"l\",3,\"a\"]]"),
             ContainsSubstring("manifest entry 1 (\"b\"): a symlink has size 3"));
  CHECK_THAT(refusal_of("[[\"b\",\"l\",0,\"\"]]"),
             ContainsSubstring("manifest entry 0 (\"b\"): the symlink's target is empty"));
}

TEST_CASE("an entry's path must be relative and normalised", "[remote][manifest]") {
  const auto [path, rule] = GENERATE(table<std::string, std::string>({
      {"", "the path is empty"},
      {"/a", "starts with '/'"},
      {"a/", "ends with '/'"},
      {"a//b", "empty component"},
      {"./a", "a \".\" component"},
      {"a/.", "a \".\" component"},
      {"a/../b", "a \"..\" component"},
      {"..", "a \"..\" component"},
      {"a\\u0000b", "NUL byte"},
      {std::string(4097, 'a'), "4097 bytes, over the 4096 allowed"},
      {"d/" + std::string(256, 'c'), "is 256 bytes, over the 255 allowed"},
  }));
  CAPTURE(path);
  CHECK_THAT(refusal_of("[" + row(path) + "]"),
             ContainsSubstring("manifest entry 0 (") && ContainsSubstring(rule));
}

TEST_CASE("paths at the bounds are accepted", "[remote][manifest]") {
  std::string longest(4096, 'p');
  for (std::size_t at = 200; at < longest.size(); at += 200) longest[at] = '/';
  CHECK(ok(decode_manifest("[" + row(longest) + "]")));
  CHECK(ok(decode_manifest("[" + row("d/" + std::string(255, 'c')) + "]")));
}

TEST_CASE("entries out of order or listed twice are refused", "[remote][manifest]") {
  CHECK_THAT(refusal_of("[" + row("b") + "," + row("a") + "]"),
             ContainsSubstring("manifest entry 1 (\"a\"): the path sorts before entry 0's"));
  CHECK_THAT(refusal_of("[" + row("a") + "," + row("a") + "]"),
             ContainsSubstring("manifest entry 1 (\"a\"): the path is entry 0's too"));
  // Bytewise: '/' (0x2f) sorts after '-' (0x2d), and a byte over 0x7f after any ASCII.
  CHECK(ok(decode_manifest("[" + row("a-b") + "," + row("a/b") + "," + row("z") + "," + row("é") +
                           "]")));
  CHECK_THAT(refusal_of("[" + row("a/b") + "," + row("a-b") + "]"),
             ContainsSubstring("sorts before entry 0's"));
}

TEST_CASE("a path that is both an entry and another entry's directory is refused",
          "[remote][manifest]") {
  CHECK_THAT(refusal_of("[" + row("a") + "," + row("a/b") + "]"),
             ContainsSubstring("manifest entry 1 (\"a/b\"): its directory \"a\" is also entry 0"));
  // Entries sorting between the two do not hide it.
  CHECK_THAT(
      refusal_of("[" + row("a") + "," + row("a-b") + "," + row("a.c") + "," + row("a/b/c") + "]"),
      ContainsSubstring("manifest entry 3 (\"a/b/c\"): its directory \"a\" is also entry 0"));
  CHECK_THAT(refusal_of("[" + link_row("d", "x") + "," + row("d/e") + "," + row("x") + "]"),
             ContainsSubstring("cannot be both a symlink and a directory"));
  CHECK(ok(decode_manifest("[" + row("a") + "," + row("ab/c") + "]")));
}

TEST_CASE("a symlink's target must be relative and lead inside the tree", "[remote][manifest]") {
  CHECK_THAT(refusal_of("[" + link_row("l", "/etc/passwd") + "]"),
             ContainsSubstring("manifest entry 0 (\"l\"): the symlink's target \"/etc/passwd\" "
                               "is absolute"));
  CHECK_THAT(refusal_of("[" + link_row("l", "../x") + "]"),
             ContainsSubstring("manifest entry 0 (\"l\"): the symlink's target \"../x\" leads "
                               "outside the tree"));
  CHECK_THAT(refusal_of("[" + link_row("d/l", "e/../../../x") + "]"),
             ContainsSubstring("leads outside the tree"));
  // "up" leads to the top, so "up/.." is above it although its names say the top.
  CHECK_THAT(refusal_of("[" + link_row("d/up", "..") + "," + link_row("d/z", "up/..") + "]"),
             ContainsSubstring("manifest entry 1 (\"d/z\"): the symlink's target \"up/..\" goes "
                               "up (\"..\") after passing through another symlink"));

  CHECK_THAT(refusal_of("[" + link_row("d/up", "..") + "," + link_row("d/z", "up/e/f/../..") + "]"),
             ContainsSubstring("manifest entry 1 (\"d/z\")") &&
                 ContainsSubstring("after passing through another symlink"));
  CHECK_THAT(refusal_of("[" + link_row("l", "a/../..") + "]"),
             ContainsSubstring("leads outside the tree"));

  CHECK(ok(decode_manifest("[" + link_row("d/e/l", "../../f") + "," + row("f") + "]")));
  CHECK(ok(decode_manifest("[" + link_row("d/e/l", "../x/../../f") + "," + row("f") + "]")));
  CHECK(ok(decode_manifest("[" + link_row("d/top", "..") + "]")));
  CHECK(ok(decode_manifest("[" + link_row("d/l", "./x//y/.") + "]")));
  // Going down through a symlink without coming back up stays inside.
  CHECK(ok(decode_manifest("[" + link_row("d/l", "../up/f") + "," + link_row("up", "d") + "]")));
}

TEST_CASE("a manifest of more entries than allowed is refused before its rows are read",
          "[remote][manifest]") {
  std::string text = "[";
  for (std::size_t i = 0; i <= kManifestMaxEntries; ++i) text += i == 0 ? "0" : ",0";
  text += "]";
  CHECK_THAT(refusal_of(text), ContainsSubstring("the manifest has 1000001 entries, over the "
                                                 "1000000 allowed"));
}

TEST_CASE("every cut of a valid encoding is refused, never a crash", "[remote][manifest]") {
  const std::string text = "[" + row("a") + "," + link_row("b", "a") + "," + row("c/d") + "]";
  REQUIRE(ok(decode_manifest(text)));
  for (std::size_t length = 0; length < text.size(); ++length) {
    CAPTURE(length);
    CHECK_FALSE(decode_manifest(std::string_view(text).substr(0, length)));
  }
  // Each byte replaced by a NUL: whatever is still accepted keeps the rules.
  for (std::size_t at = 0; at < text.size(); ++at) {
    std::string changed = text;
    changed[at] = '\0';
    const auto decoded = decode_manifest(changed);
    if (decoded) CHECK(ok(check_manifest(*decoded)));
  }
}

TEST_CASE("check_manifest holds an in-memory manifest to the same rules", "[remote][manifest]") {
  Manifest manifest;
  manifest.entries = {file_entry("a", 1)};
  manifest.entries[0].target = "b";
  CHECK_THAT(check_refusal_of(manifest),
             ContainsSubstring("manifest entry 0 (\"a\"): a file has a symlink target (\"b\")"));

  manifest.entries = {link_entry("l", "a")};
  manifest.entries[0].sha256 = kHashA;
  CHECK_THAT(check_refusal_of(manifest), ContainsSubstring("a symlink carries a sha256"));

  manifest.entries = {file_entry("bad\xff", 1)};
  CHECK_THAT(check_refusal_of(manifest),
             ContainsSubstring("(\"bad\\xff\"): the path is not UTF-8 (at byte 3)"));

  manifest.entries = {file_entry("b", 1), file_entry("a", 1)};
  CHECK_THAT(check_refusal_of(manifest), ContainsSubstring("sorts before entry 0's"));

  manifest.entries = {file_entry("a", 1), link_entry("b", "a\n")};
  CHECK(ok(check_manifest(manifest)));
  const auto decoded = decode_manifest(encode_manifest(manifest));
  REQUIRE(ok(decoded));
  CHECK(*decoded == manifest);
}
