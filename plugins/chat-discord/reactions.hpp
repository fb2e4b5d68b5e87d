#pragma once

// The glyph each of the core's reactions is shown as on Discord (common/reaction_marks.hpp, the
// table the documentation is generated from), and the URL form Discord's reaction routes take.
// Every glyph is a single code point with emoji presentation, so it renders the same on every
// client and needs no variation selector.

#include <errand/sdk/chat_transport.hpp>
#include <string>
#include <string_view>

namespace errand::discord {

// UTF-8 of the emoji for a reaction.
std::string_view reaction_glyph(sdk::Reaction reaction);

// Percent-encodes every byte outside the URL-unreserved set (RFC 3986).
std::string percent_encode(std::string_view text);

}  // namespace errand::discord
