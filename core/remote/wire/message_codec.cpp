#include <variant>

#include "core/remote/wire/binary_messages.hpp"
#include "core/remote/wire/json_messages.hpp"
#include "core/remote/wire/messages.hpp"

namespace errand::remote::wire {

namespace {

// The frame type that carries each message.
constexpr FrameType carrier(const Hello&) noexcept {
  return FrameType::hello;
}
constexpr FrameType carrier(const Admit&) noexcept {
  return FrameType::admit;
}
constexpr FrameType carrier(const ManifestPart&) noexcept {
  return FrameType::manifest_part;
}
constexpr FrameType carrier(const Need&) noexcept {
  return FrameType::need;
}
constexpr FrameType carrier(const BlobChunk&) noexcept {
  return FrameType::blob;
}
constexpr FrameType carrier(const Admitted&) noexcept {
  return FrameType::admitted;
}
constexpr FrameType carrier(const Refused&) noexcept {
  return FrameType::refused;
}
constexpr FrameType carrier(const Queued&) noexcept {
  return FrameType::queued;
}
constexpr FrameType carrier(const Output&) noexcept {
  return FrameType::output;
}
constexpr FrameType carrier(const Attach&) noexcept {
  return FrameType::attach;
}
constexpr FrameType carrier(const Input&) noexcept {
  return FrameType::input;
}
constexpr FrameType carrier(const Signal&) noexcept {
  return FrameType::signal;
}
constexpr FrameType carrier(const Detach&) noexcept {
  return FrameType::detach;
}
constexpr FrameType carrier(const End&) noexcept {
  return FrameType::end;
}
constexpr FrameType carrier(const Request&) noexcept {
  return FrameType::request;
}
constexpr FrameType carrier(const Answer&) noexcept {
  return FrameType::answer;
}

}  // namespace

FrameType frame_type_of(const Message& message) noexcept {
  return std::visit([](const auto& alternative) { return carrier(alternative); }, message);
}

sdk::Result<Message> decode_message(const Frame& frame) {
  if (carries_json(frame.type)) return decode_json_payload(frame.type, frame.payload);
  return decode_binary_payload(frame.type, frame.payload);
}

std::string encode_payload(const Message& message) {
  return std::visit([](const auto& alternative) { return payload_of(alternative); }, message);
}

void append_message(std::string& out, const Message& message) {
  append_frame(out, frame_type_of(message), encode_payload(message));
}

std::string encode_message(const Message& message) {
  std::string out;
  append_message(out, message);
  return out;
}

}  // namespace errand::remote::wire
