#include "common/unique_fd.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/support/temp_dir.hpp"

#include <fcntl.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <string>

using Catch::Matchers::ContainsSubstring;
using errand::remote::is_sha256_hex;
using errand::remote::Sha256;
using errand::remote::sha256_hex;
using errand::remote::sha256_of_open_file;
using errand::test::ok;
using errand::test::TempDir;
using errand::test::write_file;

namespace {

// FIPS 180-2's example digests.
constexpr const char* kEmptyDigest =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr const char* kAbcDigest =
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

}  // namespace

TEST_CASE("SHA-256 digests are the standard's, in lower-case hex", "[remote][sha256]") {
  CHECK(sha256_hex("") == kEmptyDigest);
  CHECK(sha256_hex("abc") == kAbcDigest);
  Sha256 pieces;
  pieces.add("a");
  pieces.add("");
  pieces.add("bc");
  CHECK(pieces.finish() == kAbcDigest);
}

TEST_CASE("an open file's digest is its content's, read in pieces", "[remote][sha256]") {
  TempDir dir;
  std::string big(200 * 1024 + 7, 'q');
  write_file(dir / "big", big);
  const errand::common::UniqueFd file(::open((dir / "big").c_str(), O_RDONLY | O_CLOEXEC));
  REQUIRE(file);
  const auto digest = sha256_of_open_file(file.get());
  REQUIRE(ok(digest));
  CHECK(digest->sha256 == sha256_hex(big));
  CHECK(digest->size == big.size());
  // A directory opens but cannot be read: the reason is the system's.
  const errand::common::UniqueFd directory(::open(dir.path().c_str(), O_RDONLY | O_CLOEXEC));
  REQUIRE(directory);
  const auto refused = sha256_of_open_file(directory.get());
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message, ContainsSubstring("directory"));
}

TEST_CASE("only 64 lower-case hex digits name a blob", "[remote][sha256]") {
  CHECK(is_sha256_hex(kAbcDigest));
  CHECK_FALSE(is_sha256_hex(""));
  CHECK_FALSE(is_sha256_hex(std::string(kAbcDigest).substr(1)));
  CHECK_FALSE(is_sha256_hex(std::string(kAbcDigest) + "0"));
  std::string upper(kAbcDigest);
  upper[0] = 'B';
  CHECK_FALSE(is_sha256_hex(upper));
  std::string dotted(kAbcDigest);
  dotted[5] = '.';
  CHECK_FALSE(is_sha256_hex(dotted));
}
