#pragma once

// The values a broker mints for a session, and how a request presents them.

#include <optional>
#include <string>
#include <string_view>

namespace errand::broker {

inline constexpr std::string_view kCredentialPrefix = "errand-session-";
inline constexpr std::size_t kCredentialHexDigits = 64;

// "errand-session-" and 64 lower-case hex digits from OpenSSL's CSPRNG. Throws
// std::runtime_error when the generator cannot be seeded: a guessable credential is worse
// than no session.
std::string mint_credential();

bool looks_like_credential(std::string_view value);

// Compares in time that depends only on the lengths, so a wrong guess learns nothing from
// how long the refusal took.
bool constant_time_equal(std::string_view a, std::string_view b);

// The password of a "Basic base64(user:password)" header value; nothing when the value is
// not Basic or does not decode.
std::optional<std::string> basic_auth_password(std::string_view header_value);

// The token of an "Authorization: Bearer <token>" value; nothing when it is another scheme.
std::optional<std::string_view> bearer_token(std::string_view header_value);

}  // namespace errand::broker
