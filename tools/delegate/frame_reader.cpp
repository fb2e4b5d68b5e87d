#include "tools/delegate/frame_reader.hpp"

#include <algorithm>

namespace errand::delegate {

namespace {

// "error 16777216": a kind, a space and at most eight digits.
constexpr std::size_t kHeaderMax = 16;
constexpr std::size_t kPayloadMax = 16u << 20;

}  // namespace

bool FrameReader::start_frame() {
  const auto space = header_.find(' ');
  const std::string kind = header_.substr(0, space);
  const std::string length = space == std::string::npos ? std::string() : header_.substr(space + 1);
  if (kind == "text") {
    kind_ = FrameKind::text;
  } else if (kind == "end") {
    kind_ = FrameKind::end;
  } else if (kind == "error") {
    kind_ = FrameKind::error;
  } else {
    error_ = "a frame has the unknown kind \"" + kind + "\"";
    return false;
  }
  if (length.empty() || length.size() > 8 ||
      !std::all_of(length.begin(), length.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    error_ = "a " + kind + " frame's length is \"" + length + "\"";
    return false;
  }
  remaining_ = std::stoul(length);
  if (remaining_ > kPayloadMax) {
    error_ = "a " + kind + " frame of " + length + " bytes is over the limit";
    return false;
  }
  header_.clear();
  payload_.clear();
  in_payload_ = true;
  return true;
}

bool FrameReader::feed(std::string_view in, std::vector<Frame>& frames) {
  if (!error_.empty()) return false;
  while (true) {
    if (in_payload_) {
      const auto take = std::min(remaining_, in.size());
      payload_.append(in.substr(0, take));
      in.remove_prefix(take);
      remaining_ -= take;
      if (remaining_ > 0) return true;
      frames.push_back({kind_, std::move(payload_)});
      payload_.clear();
      in_payload_ = false;
    }
    if (in.empty()) return true;
    const auto newline = in.find('\n');
    header_.append(in.substr(0, std::min(newline, in.size())));
    if (header_.size() > kHeaderMax) {
      error_ = "a frame header is too long";
      return false;
    }
    if (newline == std::string_view::npos) return true;
    in.remove_prefix(newline + 1);
    if (!start_frame()) return false;
  }
}

}  // namespace errand::delegate
