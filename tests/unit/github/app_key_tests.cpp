// The App's key file is judged before any session: each refusal names the file and what to do.

#include "core/github/app_private_key.hpp"
#include "tests/fakes/github/fake_github.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/github/test_keys.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using errand::github::load_app_key;
using namespace errand::github::testing;

TEST_CASE("a private RSA key readable by its owner alone is loaded",
          "[github][key:github.app.privateKeyPath]") {
  errand::test::TempDir dir;
  write_with_mode(dir / "app.pem", errand::fakes::make_test_app_key().private_key_pem, 0600);
  const auto key = load_app_key(dir / "app.pem");
  REQUIRE(key.has_value());
  CHECK(EVP_PKEY_base_id(key->get()) == EVP_PKEY_RSA);
}

TEST_CASE("a missing key file is refused naming the path", "[github]") {
  errand::test::TempDir dir;
  const auto key = load_app_key(dir / "absent.pem");
  REQUIRE_FALSE(key.has_value());
  CHECK_THAT(key.error().message, ContainsSubstring((dir / "absent.pem").string()));
  CHECK_THAT(key.error().message, ContainsSubstring("does not exist"));
}

TEST_CASE("a key file others may read is refused with the chmod to run", "[github]") {
  errand::test::TempDir dir;
  for (const int mode : {0644, 0640, 0604}) {
    INFO(mode);
    write_with_mode(dir / "app.pem", errand::fakes::make_test_app_key().private_key_pem, mode);
    const auto key = load_app_key(dir / "app.pem");
    REQUIRE_FALSE(key.has_value());
    CHECK_THAT(key.error().message, ContainsSubstring("chmod 600 " + (dir / "app.pem").string()));
  }
}

TEST_CASE("an EC key and a file of no PEM are refused, each with its reason", "[github]") {
  errand::test::TempDir dir;
  write_with_mode(dir / "ec.pem", make_ec_key_pem(), 0600);
  const auto ec = load_app_key(dir / "ec.pem");
  REQUIRE_FALSE(ec.has_value());
  CHECK_THAT(ec.error().message, ContainsSubstring("not RSA"));

  write_with_mode(dir / "garbage.pem", "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n", 0600);
  const auto garbage = load_app_key(dir / "garbage.pem");
  REQUIRE_FALSE(garbage.has_value());
  CHECK_THAT(garbage.error().message, ContainsSubstring("holds no PEM private key"));

  // A public key is PEM but cannot sign.
  write_with_mode(dir / "public.pem", errand::fakes::make_test_app_key().public_key_pem, 0600);
  const auto public_only = load_app_key(dir / "public.pem");
  REQUIRE_FALSE(public_only.has_value());
  CHECK_THAT(public_only.error().message, ContainsSubstring("holds no PEM private key"));
}

TEST_CASE("a key file the daemon's account cannot read is refused", "[github]") {
  errand::test::TempDir dir;
  write_with_mode(dir / "app.pem", errand::fakes::make_test_app_key().private_key_pem, 0600);
  // As the test account (never root, tests/support/test_account.hpp), mode 0 cannot be read.
  std::filesystem::permissions(dir / "app.pem", std::filesystem::perms::none);
  const auto key = load_app_key(dir / "app.pem");
  REQUIRE_FALSE(key.has_value());
  CHECK_THAT(key.error().message, ContainsSubstring((dir / "app.pem").string()));
  CHECK_THAT(key.error().message, ContainsSubstring("let the daemon's account read"));
}
