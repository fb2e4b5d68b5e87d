#pragma once

// Cuts frames (frame.hpp) out of the byte stream as it arrives, in whatever pieces the socket
// hands over. A frame that breaks the framing's rules fails the reader for good: after a bad
// length or type byte nothing says where the next frame starts, so it never guesses.

#include <cstddef>
#include <errand/sdk/result.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/remote/wire/frame.hpp"

namespace errand::remote::wire {

class FrameReader {
 public:
  // The next bytes off the stream. Call next() until it yields nothing before feeding more, so
  // the reader holds at most one frame plus one read. Ignored once the reader has failed.
  void feed(std::string_view bytes);

  // The next whole frame; nothing while the rest of it has not arrived; or the refusal that
  // failed the reader (the same one on every later call): a zero or over-limit length, or an
  // unknown type byte, refused as soon as those bytes are in.
  sdk::Result<std::optional<Frame>> next();

  bool failed() const noexcept { return failure_.has_value(); }

  // For when the stream has closed: refuses if it closed partway through a frame.
  sdk::Result<void> check_clean_end() const;

 private:
  std::string_view pending() const noexcept;
  sdk::Result<std::optional<Frame>> fail(std::string sentence);

  std::string buffer_;
  std::size_t consumed_ = 0;  // bytes at the front of buffer_ already handed out as frames
  std::optional<sdk::Error> failure_;
};

}  // namespace errand::remote::wire
