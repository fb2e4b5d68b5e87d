#pragma once

// The paths a provider route forwards, and how a path is written into a receipt.

#include <errand/sdk/result.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace errand::broker {

struct SplitTarget {
  std::string_view path;
  std::string_view query;  // without the '?'
  bool has_query = false;
};

// Splits an origin-form target at its first '?'.
SplitTarget split_target(std::string_view target);

// Whether a path may be forwarded; refused, the error says why. A path is refused when a
// provider, or the URL the broker rebuilds from it, could read it differently from how it was
// matched: an empty, "." or ".." segment, a segment that decodes once to one of those or to a
// slash or backslash (or holds a backslash or control character), a ';' parameter, a fragment,
// or a broken percent escape. The root "/" alone is accepted.
sdk::Result<void> check_forwardable_path(std::string_view raw_path);

// Decodes %XX escapes once; nothing when an escape is broken.
std::optional<std::string> percent_decode(std::string_view text);

// Decodes what can be decoded and keeps a broken escape as written, for a receipt.
std::string percent_decode_lenient(std::string_view text);

// Control characters as \xNN (and a backslash doubled) so a receipt prints on one line as
// what was sent.
std::string escape_controls(std::string_view text);

// The path column of a receipt from a path already decoded and scrubbed: control characters
// escaped, then cut to max_bytes without splitting an escape or a UTF-8 sequence.
std::string receipt_path_text(std::string_view decoded_scrubbed, std::size_t max_bytes = 256);

}  // namespace errand::broker
