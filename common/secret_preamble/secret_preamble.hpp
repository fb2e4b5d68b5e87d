#pragma once

// The secret preamble: the first bytes a sandbox plugin writes to the stdin of a guest's first
// process, ahead of the agent's own stream. A 4-byte big-endian length N, then exactly N bytes of
// `NAME=value\0` entries. The reader takes exactly N bytes and no more, so every byte after the
// preamble stays in the stream for the agent. Secrets travel this way because a runtime's exec
// API may put environment values in the argv of a host process any account can read.

#include <cstddef>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace errand::secret_preamble {

using Entries = std::vector<std::pair<std::string, std::string>>;

inline constexpr std::size_t kLengthBytes = 4;
// Far above what a session's secrets take (a few keys and tokens); a larger length is a
// corrupted or foreign stream, refused before any of it is read.
inline constexpr std::uint32_t kMaxBodyBytes = 1U << 20;

// The bytes to write: refused when a name is not an environment variable name (letters, digits
// and `_`, not starting with a digit), a name repeats, a value holds a NUL, or the body would
// exceed kMaxBodyBytes.
sdk::Result<std::string> encode(const Entries& entries);

// The body length a 4-byte header announces; refused above kMaxBodyBytes.
sdk::Result<std::uint32_t> body_length(const unsigned char (&header)[kLengthBytes]);

// The entries of a body, in order; refused on the same grounds encode refuses, or when the last
// entry lacks its NUL.
sdk::Result<Entries> decode_body(std::string_view body);

// Reads one preamble from fd: the header, then exactly the body it announces. Refused when the
// stream ends early (saying after how many bytes), the length is too large, or the body is
// malformed.
sdk::Result<Entries> read_from(int fd);

}  // namespace errand::secret_preamble
