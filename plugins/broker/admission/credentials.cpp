#include "plugins/broker/admission/credentials.hpp"

#include "common/base64/base64.hpp"

#include "common/ascii_case.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <array>
#include <stdexcept>

namespace errand::broker {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string mint_credential() {
  std::array<unsigned char, kCredentialHexDigits / 2> random{};
  if (RAND_bytes(random.data(), static_cast<int>(random.size())) != 1) {
    throw std::runtime_error(
        "the system's random generator could not provide bytes for a session credential");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(kCredentialPrefix);
  for (const unsigned char byte : random) {
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0x0F]);
  }
  OPENSSL_cleanse(random.data(), random.size());
  return out;
}

bool looks_like_credential(std::string_view value) {
  if (!value.starts_with(kCredentialPrefix)) return false;
  value.remove_prefix(kCredentialPrefix.size());
  if (value.size() != kCredentialHexDigits) return false;
  for (const char c : value) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::optional<std::string> basic_auth_password(std::string_view header_value) {
  header_value = trim(header_value);
  if (!common::istarts_with(header_value, "basic ")) return std::nullopt;
  const auto decoded = base64::decode(trim(header_value.substr(6)));
  if (!decoded) return std::nullopt;
  const auto colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  return decoded->substr(colon + 1);
}

std::optional<std::string_view> bearer_token(std::string_view header_value) {
  header_value = trim(header_value);
  if (!common::istarts_with(header_value, "bearer ")) return std::nullopt;
  return trim(header_value.substr(7));
}

}  // namespace errand::broker
