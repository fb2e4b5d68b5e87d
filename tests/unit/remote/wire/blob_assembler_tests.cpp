#include "core/remote/snapshot/sha256.hpp"
#include "core/remote/wire/blob_assembler.hpp"
#include "tests/support/result_checks.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <string>

using Catch::Matchers::Equals;
using errand::remote::sha256_hex;
using errand::remote::wire::BlobAssembler;
using errand::remote::wire::BlobChunk;
using errand::test::ok;

TEST_CASE("a blob's chunks in order are verified at the last one", "[remote][wire]") {
  const std::string content = "first part, second part, third";
  const auto blob = sha256_hex(content);
  BlobAssembler assembler;
  auto first = assembler.add(BlobChunk{blob, false, content.substr(0, 12)});
  REQUIRE(ok(first));
  CHECK_FALSE(*first);
  CHECK(assembler.in_progress() == blob);
  auto second = assembler.add(BlobChunk{blob, false, content.substr(12, 13)});
  REQUIRE(ok(second));
  CHECK_FALSE(*second);
  CHECK(assembler.bytes() == 25);
  auto last = assembler.add(BlobChunk{blob, true, content.substr(25)});
  REQUIRE(ok(last));
  CHECK(*last);
  CHECK(assembler.in_progress().empty());

  // The next blob starts afresh, an empty one as a single empty last chunk.
  auto empty = assembler.add(BlobChunk{sha256_hex(""), true, ""});
  REQUIRE(ok(empty));
  CHECK(*empty);
}

TEST_CASE("a blob whose content does not hash to its name is refused", "[remote][wire]") {
  const auto blob = sha256_hex("what was promised");
  BlobAssembler assembler;
  REQUIRE(ok(assembler.add(BlobChunk{blob, false, "what was "})));
  auto last = assembler.add(BlobChunk{blob, true, "sent"});
  REQUIRE_FALSE(last.has_value());
  CHECK_THAT(last.error().message,
             Equals("blob " + blob + ": content hashes to " + sha256_hex("what was sent")));
  // The blob is dropped, so the next chunk starts another.
  CHECK(assembler.in_progress().empty());
  auto next = assembler.add(BlobChunk{sha256_hex("x"), true, "x"});
  REQUIRE(ok(next));
  CHECK(*next);
}

TEST_CASE("a chunk of another blob while one is in progress is refused", "[remote][wire]") {
  const auto blob = sha256_hex("ab");
  const auto other = sha256_hex("other");
  BlobAssembler assembler;
  REQUIRE(ok(assembler.add(BlobChunk{blob, false, "a"})));
  auto stray = assembler.add(BlobChunk{other, true, "other"});
  REQUIRE_FALSE(stray.has_value());
  CHECK_THAT(stray.error().message, Equals("a chunk of blob " + other + " arrived while blob " +
                                           blob + " is not complete"));
  // The blob in progress is untouched and can still complete.
  CHECK(assembler.in_progress() == blob);
  auto last = assembler.add(BlobChunk{blob, true, "b"});
  REQUIRE(ok(last));
  CHECK(*last);
}
