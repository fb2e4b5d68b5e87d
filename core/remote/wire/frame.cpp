#include "core/remote/wire/frame.hpp"

namespace errand::remote::wire {

bool is_frame_type(std::uint8_t byte) noexcept {
  return byte >= static_cast<std::uint8_t>(FrameType::hello) &&
         byte <= static_cast<std::uint8_t>(FrameType::answer);
}

std::string_view frame_type_name(FrameType type) noexcept {
  switch (type) {
    case FrameType::hello: return "hello";
    case FrameType::admit: return "admit";
    case FrameType::manifest_part: return "manifest_part";
    case FrameType::need: return "need";
    case FrameType::blob: return "blob";
    case FrameType::admitted: return "admitted";
    case FrameType::refused: return "refused";
    case FrameType::queued: return "queued";
    case FrameType::output: return "output";
    case FrameType::attach: return "attach";
    case FrameType::input: return "stdin";
    case FrameType::signal: return "signal";
    case FrameType::detach: return "detach";
    case FrameType::end: return "end";
    case FrameType::request: return "request";
    case FrameType::answer: return "answer";
  }
  return "unknown";
}

void append_frame(std::string& out, FrameType type, std::string_view payload) {
  const auto length = static_cast<std::uint32_t>(payload.size() + 1);
  out.reserve(out.size() + kFrameLengthBytes + length);
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((length >> shift) & 0xff);
  out += static_cast<char>(type);
  out.append(payload);
}

}  // namespace errand::remote::wire
