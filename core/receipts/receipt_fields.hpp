#pragma once

// The last line of defence for what a receipt row may hold: a standard method name, and a path
// with no control characters, no minted credential and at most 256 bytes. The broker already
// writes receipts this way; the database does not trust that it always will.

#include <cstddef>
#include <string>
#include <string_view>

namespace errand::receipts {

inline constexpr std::size_t kMaxPathBytes = 256;

// Control characters become \xNN, anything shaped like an errand-minted value
// ("errand-session-" and 64 hex digits) becomes "[redacted]", and the result is cut to
// max_bytes without splitting an escape or a UTF-8 sequence.
std::string safe_path(std::string_view path, std::size_t max_bytes = kMaxPathBytes);

// Replaces every "errand-session-" followed by 64 hex digits with "[redacted]".
std::string redact_minted(std::string_view text);

}  // namespace errand::receipts
