#pragma once

// Replaces every occurrence of one secret in a byte stream that arrives in pieces, including an
// occurrence split across pieces: a piece's tail that could begin the key (key length minus one
// bytes at most) is held back until the next piece shows whether it does.

#include <cstdint>
#include <string>
#include <string_view>

namespace errand::broker {

inline constexpr std::string_view kRedacted = "[redacted]";

class StreamingScrubber {
 public:
  // An empty key scrubs nothing and holds nothing back.
  explicit StreamingScrubber(std::string key, std::string replacement = std::string(kRedacted));

  // Appends to out what can be released of what arrived so far.
  void feed(std::string_view piece, std::string& out);
  // Releases what was held back at the end of the stream.
  void finish(std::string& out);

  std::uint64_t replacements() const noexcept { return replacements_; }
  std::size_t held_back() const noexcept { return carry_.size(); }

 private:
  void scan(std::string_view data, std::string& out);

  std::string key_;
  std::string replacement_;
  std::string carry_;
  std::string window_;
  std::uint64_t replacements_ = 0;
};

// Every occurrence of key in text replaced; for header values, which arrive whole.
std::string scrub_whole(std::string_view text, std::string_view key,
                        std::string_view replacement = kRedacted);

}  // namespace errand::broker
