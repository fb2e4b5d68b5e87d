#pragma once

// Decoding the two base64 alphabets GitHub's callers send: base64url without padding (each part
// of a JWT, RFC 7515) and standard base64 (an HTTP Basic credential, RFC 7617).

#include <optional>
#include <string>
#include <string_view>

namespace errand::fakes {

// Nothing when a byte is outside the URL-safe alphabet (padding included) or the length is one
// no encoder produces.
std::optional<std::string> decode_base64url(std::string_view text);

// Nothing when a byte is outside the standard alphabet or padding is misplaced.
std::optional<std::string> decode_base64(std::string_view text);

}  // namespace errand::fakes
