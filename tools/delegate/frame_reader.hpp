#pragma once

// The frames of an admitted delegate answer, read from the decoded body as it arrives: each is
// "<kind> <decimal length>\n" and then exactly that many bytes of payload. Kinds: text (a piece
// of the answer), end (the answer is complete), error (one sentence saying why it stopped).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace errand::delegate {

enum class FrameKind { text, end, error };

struct Frame {
  FrameKind kind;
  std::string payload;
};

class FrameReader {
 public:
  // Appends every frame completed by `in` to `frames`; false, with error() saying why, when the
  // framing is broken (an unknown kind, a malformed or oversized length).
  bool feed(std::string_view in, std::vector<Frame>& frames);
  // True between frames: nothing of a next frame has arrived.
  bool between_frames() const { return !in_payload_ && header_.empty(); }
  const std::string& error() const { return error_; }

 private:
  bool start_frame();

  std::string header_;
  bool in_payload_ = false;
  FrameKind kind_ = FrameKind::text;
  std::size_t remaining_ = 0;
  std::string payload_;
  std::string error_;
};

}  // namespace errand::delegate
