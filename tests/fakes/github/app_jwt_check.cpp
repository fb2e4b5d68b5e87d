#include "tests/fakes/github/app_jwt_check.hpp"

#include "tests/fakes/github/base64_text.hpp"

#include <openssl/pem.h>

#include <boost/json/parse.hpp>
#include <optional>
#include <stdexcept>

namespace errand::fakes {
namespace json = boost::json;

namespace {

constexpr const char* kNotDecoded = "A JSON web token could not be decoded";
constexpr const char* kIssuerNotInteger = "'Issuer' claim ('iss') must be an Integer";
constexpr const char* kIssuedInFuture =
    "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was "
    "issued";
constexpr const char* kExpired =
    "'Expiration time' claim ('exp') must be a numeric value representing the future time at "
    "which the assertion expires";
constexpr const char* kTooFar = "'Expiration time' claim ('exp') is too far in the future";

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct DigestFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

JwtVerdict refused(std::string message) {
  JwtVerdict verdict;
  verdict.message = std::move(message);
  return verdict;
}

std::optional<json::object> json_object_of(std::string_view base64url_part) {
  const auto text = decode_base64url(base64url_part);
  if (!text) return std::nullopt;
  boost::system::error_code ec;
  auto value = json::parse(*text, ec);
  if (ec || !value.is_object()) return std::nullopt;
  return std::move(value.as_object());
}

// GitHub takes the App id as a number or as its decimal text.
std::optional<std::string> issuer_of(const json::object& claims) {
  const auto* iss = claims.if_contains("iss");
  if (!iss) return std::nullopt;
  if (iss->is_int64() && iss->as_int64() > 0) return std::to_string(iss->as_int64());
  if (iss->is_uint64()) return std::to_string(iss->as_uint64());
  if (!iss->is_string()) return std::nullopt;
  const std::string text(iss->as_string());
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return text;
}

std::optional<std::int64_t> seconds_of(const json::object& claims, std::string_view name) {
  const auto* value = claims.if_contains(name);
  if (!value) return std::nullopt;
  if (value->is_int64()) return value->as_int64();
  if (value->is_double()) return static_cast<std::int64_t>(value->as_double());
  return std::nullopt;
}

bool rs256_verifies(EVP_PKEY* key, std::string_view signed_part, const std::string& signature) {
  std::unique_ptr<EVP_MD_CTX, DigestFree> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) != 1)
    return false;
  return EVP_DigestVerify(
             ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
             reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size()) == 1;
}

}  // namespace

RsaPublicKey read_rsa_public_key(std::string_view pem) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) throw std::invalid_argument("cannot read the App key: out of memory");
  EVP_PKEY* key = PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr);
  if (!key) {
    BIO_reset(bio.get());
    key = PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr);
  }
  if (!key) throw std::invalid_argument("the App key is neither a PEM public nor private key");
  RsaPublicKey held(key, EVP_PKEY_free);
  if (EVP_PKEY_get_base_id(key) != EVP_PKEY_RSA)
    throw std::invalid_argument("the App key is not an RSA key; GitHub Apps sign with RS256");
  return held;
}

JwtVerdict check_app_jwt(std::string_view compact, const AppKeyLookup& key_of,
                         std::int64_t now_seconds) {
  const auto first_dot = compact.find('.');
  const auto second_dot =
      first_dot == std::string_view::npos ? first_dot : compact.find('.', first_dot + 1);
  if (second_dot == std::string_view::npos ||
      compact.find('.', second_dot + 1) != std::string_view::npos)
    return refused(kNotDecoded);
  const auto header = json_object_of(compact.substr(0, first_dot));
  const auto claims = json_object_of(compact.substr(first_dot + 1, second_dot - first_dot - 1));
  const auto signature = decode_base64url(compact.substr(second_dot + 1));
  if (!header || !claims || !signature) return refused(kNotDecoded);
  const auto* alg = header->if_contains("alg");
  if (!alg || !alg->is_string() || alg->as_string() != "RS256") return refused(kNotDecoded);

  const auto issuer = issuer_of(*claims);
  if (!issuer) return refused(kIssuerNotInteger);
  const RsaPublicKey key = key_of(*issuer);
  if (!key || !rs256_verifies(key.get(), compact.substr(0, second_dot), *signature))
    return refused(kNotDecoded);

  const auto issued_at = seconds_of(*claims, "iat");
  if (!issued_at || *issued_at > now_seconds + kIssuedAtSlackSeconds)
    return refused(kIssuedInFuture);
  const auto expires_at = seconds_of(*claims, "exp");
  if (!expires_at || *expires_at <= now_seconds) return refused(kExpired);
  if (*expires_at - *issued_at > kMaxJwtLifetimeSeconds ||
      *expires_at > now_seconds + kMaxJwtLifetimeSeconds)
    return refused(kTooFar);
  JwtVerdict verdict;
  verdict.accepted = true;
  verdict.app_id = *issuer;
  return verdict;
}

}  // namespace errand::fakes
