#include "core/remote/snapshot/manifest.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "core/remote/wire/manifest_parts.hpp"
#include "core/remote/wire/messages.hpp"
#include "tests/support/result_checks.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <string>

using Catch::Matchers::Equals;
using Catch::Matchers::StartsWith;
using errand::remote::encode_manifest;
using errand::remote::EntryKind;
using errand::remote::Manifest;
using errand::remote::sha256_hex;
using errand::remote::wire::kMaxChunkBytes;
using errand::remote::wire::kMaxManifestBytes;
using errand::remote::wire::ManifestAssembler;
using errand::remote::wire::ManifestPart;
using errand::remote::wire::split_manifest;
using errand::test::ok;

namespace {

Manifest small_tree() {
  Manifest manifest;
  manifest.entries.push_back({"README.md", EntryKind::file, 5, sha256_hex("hello"), ""});
  manifest.entries.push_back({"bin/run", EntryKind::executable, 2, sha256_hex("#!"), ""});
  manifest.entries.push_back({"docs", EntryKind::symlink, 0, "", "README.md"});
  return manifest;
}

}  // namespace

TEST_CASE("a manifest split into small parts assembles to itself", "[remote][wire]") {
  const auto manifest = small_tree();
  const auto text = encode_manifest(manifest);
  const auto parts = split_manifest(text, 7);
  REQUIRE(parts.size() == (text.size() + 6) / 7);
  ManifestAssembler assembler;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    CHECK_FALSE(parts[i].last);
    auto nothing_yet = assembler.add(parts[i]);
    REQUIRE(ok(nothing_yet));
    CHECK_FALSE(nothing_yet->has_value());
  }
  CHECK(parts.back().last);
  auto whole = assembler.add(parts.back());
  REQUIRE(ok(whole));
  REQUIRE(whole->has_value());
  CHECK(**whole == manifest);
  CHECK(assembler.bytes() == 0);
}

TEST_CASE("an empty manifest is one empty-tree part", "[remote][wire]") {
  const auto parts = split_manifest(encode_manifest(Manifest{}));
  REQUIRE(parts.size() == 1);
  CHECK(parts[0].last);
  ManifestAssembler assembler;
  auto whole = assembler.add(parts[0]);
  REQUIRE(ok(whole));
  REQUIRE(whole->has_value());
  CHECK((*whole)->entries.empty());
  // Parts are never larger than a frame's chunk.
  const std::string big(kMaxChunkBytes + 10, ' ');
  const auto big_parts = split_manifest(big, kMaxChunkBytes * 4);
  REQUIRE(big_parts.size() == 2);
  CHECK(big_parts[0].text.size() == kMaxChunkBytes);
}

TEST_CASE("manifest parts past the 64 MiB bound are refused", "[remote][wire]") {
  ManifestAssembler assembler;
  const ManifestPart chunk{false, std::string(kMaxChunkBytes, ' ')};
  for (std::size_t i = 0; i < kMaxManifestBytes / kMaxChunkBytes; ++i)
    REQUIRE(ok(assembler.add(chunk)));
  auto over = assembler.add(ManifestPart{true, "]"});
  REQUIRE_FALSE(over.has_value());
  CHECK_THAT(over.error().message,
             Equals("the manifest's parts reach 67108865 bytes, over the 67108864-byte limit"));
  CHECK(assembler.bytes() == 0);
}

TEST_CASE("assembled text that is not a manifest is refused by its decoder", "[remote][wire]") {
  ManifestAssembler assembler;
  REQUIRE(ok(assembler.add(ManifestPart{false, R"([["a","q",)"})));
  auto bad = assembler.add(ManifestPart{true, R"(1,""]])"});
  REQUIRE_FALSE(bad.has_value());
  CHECK_THAT(bad.error().message, StartsWith("manifest entry 0"));
}
