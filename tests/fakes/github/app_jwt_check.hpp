#pragma once

// What GitHub checks of the JWT a GitHub App authenticates with: three base64url parts, a
// header naming RS256 (nothing else, "none" least of all), an RS256 signature over
// "header.payload" made with the App's key, `iss` naming the App, `iat` not in the future and
// `exp` in the future but at most ten minutes ahead. Refusals carry GitHub's own messages.

#include <openssl/evp.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace errand::fakes {

using RsaPublicKey = std::shared_ptr<EVP_PKEY>;

// The RSA public key in pem: a PUBLIC KEY, or a private key whose public half is taken. Throws
// std::invalid_argument saying why not.
RsaPublicKey read_rsa_public_key(std::string_view pem);

struct JwtVerdict {
  bool accepted = false;
  std::string app_id;   // the verified iss claim
  std::string message;  // GitHub's 401 message when refused
};

// The App's key by id; null when the fake has no such App.
using AppKeyLookup = std::function<RsaPublicKey(const std::string& app_id)>;

// Clock skew GitHub tolerates on iat.
inline constexpr std::int64_t kIssuedAtSlackSeconds = 60;
// The longest a JWT may live.
inline constexpr std::int64_t kMaxJwtLifetimeSeconds = 600;

JwtVerdict check_app_jwt(std::string_view compact, const AppKeyLookup& key_of,
                         std::int64_t now_seconds);

}  // namespace errand::fakes
