#include "core/github/app_jwt.hpp"

#include "common/base64/base64.hpp"

#include <openssl/err.h>
#include <openssl/evp.h>

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <memory>
#include <vector>

namespace errand::github {

namespace json = boost::json;

sdk::Result<std::string> app_jwt(const AppKey& key, std::string_view app_id,
                                 std::chrono::system_clock::time_point now) {
  using std::chrono::seconds;
  const auto at = std::chrono::duration_cast<seconds>(now.time_since_epoch()).count();
  const json::value header{{"alg", "RS256"}, {"typ", "JWT"}};
  const json::value claims{{"iat", at - 60}, {"exp", at + 9 * 60}, {"iss", app_id}};
  const std::string signed_part = base64::encode_url(json::serialize(header)) + "." +
                                  base64::encode_url(json::serialize(claims));

  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                  &EVP_MD_CTX_free);
  std::size_t length = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(signed_part.data());
  if (!context ||
      EVP_DigestSignInit(context.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(context.get(), nullptr, &length, data, signed_part.size()) != 1) {
    ERR_clear_error();
    return sdk::make_error("could not sign the GitHub App's token request with its key");
  }
  std::vector<unsigned char> signature(length);
  if (EVP_DigestSign(context.get(), signature.data(), &length, data, signed_part.size()) != 1) {
    ERR_clear_error();
    return sdk::make_error("could not sign the GitHub App's token request with its key");
  }
  return signed_part + "." +
         base64::encode_url({reinterpret_cast<const char*>(signature.data()), length});
}

}  // namespace errand::github
