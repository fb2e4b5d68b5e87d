#include "core/remote/wire/frame_reader.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace errand::remote::wire {
namespace {

std::uint32_t read_frame_length(std::string_view bytes) noexcept {
  std::uint32_t length = 0;
  for (std::size_t i = 0; i < kFrameLengthBytes; ++i)
    length = (length << 8) | static_cast<std::uint8_t>(bytes[i]);
  return length;
}

}  // namespace

void FrameReader::feed(std::string_view bytes) {
  if (failure_ || bytes.empty()) return;
  // Frames already handed out are dropped before appending, so what moves is only the start of
  // a frame not yet complete.
  if (consumed_ > 0) {
    buffer_.erase(0, consumed_);
    consumed_ = 0;
  }
  buffer_.append(bytes);
}

std::string_view FrameReader::pending() const noexcept {
  return std::string_view(buffer_).substr(consumed_);
}

sdk::Result<std::optional<Frame>> FrameReader::fail(std::string sentence) {
  failure_ = sdk::refusal(std::move(sentence));
  buffer_.clear();
  buffer_.shrink_to_fit();
  consumed_ = 0;
  return *failure_;
}

sdk::Result<std::optional<Frame>> FrameReader::next() {
  if (failure_) return *failure_;
  const auto bytes = pending();
  if (bytes.size() < kFrameLengthBytes) return std::optional<Frame>{};
  const auto length = read_frame_length(bytes);
  if (length == 0) return fail("frame of length 0 has no type byte");
  if (length > kMaxFrameBytes)
    return fail(fmt::format("frame of {} bytes is over the {}-byte limit", length, kMaxFrameBytes));
  if (bytes.size() == kFrameLengthBytes) return std::optional<Frame>{};
  const auto type = static_cast<std::uint8_t>(bytes[kFrameLengthBytes]);
  if (!is_frame_type(type)) return fail(fmt::format("unknown frame type {}", type));
  if (bytes.size() < kFrameLengthBytes + length) return std::optional<Frame>{};
  Frame frame{static_cast<FrameType>(type),
              std::string(bytes.substr(kFrameLengthBytes + 1, length - 1))};
  consumed_ += kFrameLengthBytes + length;
  if (consumed_ == buffer_.size()) {
    buffer_.clear();
    consumed_ = 0;
  }
  return std::optional<Frame>(std::move(frame));
}

sdk::Result<void> FrameReader::check_clean_end() const {
  if (failure_) return *failure_;
  const auto held = pending().size();
  if (held == 0) return {};
  return sdk::refusal(fmt::format("the stream ended {} bytes into a frame", held));
}

}  // namespace errand::remote::wire
