// The App's JWT checked the way GitHub checks it: the RS256 signature verified with OpenSSL
// against the App's public key, and the claims read back.

#include "core/github/app_jwt.hpp"
#include "tests/fakes/github/fake_github.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/github/test_keys.hpp"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <memory>

using namespace errand::github;
using namespace errand::github::testing;
namespace json = boost::json;

namespace {

std::string base64url_decode(std::string text) {
  for (auto& c : text) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  const std::size_t padding = (4 - text.size() % 4) % 4;
  text.append(padding, '=');
  std::string out(text.size() / 4 * 3, '\0');
  const int length = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                     reinterpret_cast<const unsigned char*>(text.data()),
                                     static_cast<int>(text.size()));
  REQUIRE(length >= 0);
  out.resize(static_cast<std::size_t>(length) - padding);
  return out;
}

bool verifies(const std::string& public_pem, const std::string& signed_part,
              const std::string& signature) {
  std::unique_ptr<BIO, decltype(&BIO_free)> in(
      BIO_new_mem_buf(public_pem.data(), static_cast<int>(public_pem.size())), &BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PUBKEY(in.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
  REQUIRE(key);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                  &EVP_MD_CTX_free);
  REQUIRE(EVP_DigestVerifyInit(context.get(), nullptr, EVP_sha256(), nullptr, key.get()) == 1);
  return EVP_DigestVerify(context.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                          signature.size(),
                          reinterpret_cast<const unsigned char*>(signed_part.data()),
                          signed_part.size()) == 1;
}

AppKey loaded(const errand::fakes::TestAppKey& key, const errand::test::TempDir& dir) {
  write_with_mode(dir / "app.pem", key.private_key_pem, 0600);
  auto loaded = load_app_key(dir / "app.pem");
  REQUIRE(loaded.has_value());
  return std::move(*loaded);
}

}  // namespace

TEST_CASE("the App's JWT is RS256, verifies with its public key, and carries iss, iat and exp",
          "[github][jwt][key:github.app.appId]") {
  errand::test::TempDir dir;
  const auto pair = errand::fakes::make_test_app_key();
  const auto key = loaded(pair, dir);
  const auto now = std::chrono::sys_days{std::chrono::year{2026} / 1 / 2} + std::chrono::hours(3);
  const auto token = app_jwt(key, "12345", now);
  REQUIRE(token.has_value());

  const auto first = token->find('.');
  const auto second = token->find('.', first + 1);
  REQUIRE(second != std::string::npos);
  CHECK(token->find('=') == std::string::npos);
  const auto header = json::parse(base64url_decode(token->substr(0, first)));
  const auto claims = json::parse(base64url_decode(token->substr(first + 1, second - first - 1)));
  CHECK(header == json::parse(R"({"alg": "RS256", "typ": "JWT"})"));
  const std::int64_t at =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  CHECK(claims.at("iss") == "12345");
  CHECK(claims.at("iat").as_int64() == at - 60);
  CHECK(claims.at("exp").as_int64() == at + 540);

  const auto signature = base64url_decode(token->substr(second + 1));
  CHECK(signature.size() == 256);  // a 2048-bit RSA signature
  CHECK(verifies(pair.public_key_pem, token->substr(0, second), signature));
  // Another key's public half does not verify it, nor does a changed claim.
  CHECK_FALSE(verifies(errand::fakes::make_test_app_key().public_key_pem, token->substr(0, second),
                       signature));
  auto altered = token->substr(0, second);
  altered[first + 3] = altered[first + 3] == 'A' ? 'B' : 'A';
  CHECK_FALSE(verifies(pair.public_key_pem, altered, signature));
}
