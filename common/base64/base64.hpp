#pragma once

// Base64 (RFC 4648) as errand speaks it: the standard alphabet with padding for what crosses
// HTTP and ACP (a Basic credential, an image handed to the agent), the URL alphabet without
// padding for a JWT's parts. Standard library only, so the static delegate command links it.

#include <optional>
#include <string>
#include <string_view>

namespace errand::base64 {

// The standard alphabet, padded with '=' to a multiple of four.
std::string encode(std::string_view bytes);

// The URL alphabet ('-' and '_' for '+' and '/'), without padding.
std::string encode_url(std::string_view bytes);

// The standard alphabet; trailing padding is optional. Nothing for a character outside the
// alphabet, or a length no encoding has (one character past a multiple of four).
std::optional<std::string> decode(std::string_view text);

}  // namespace errand::base64
