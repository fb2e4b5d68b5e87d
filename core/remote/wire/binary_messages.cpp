#include "core/remote/wire/binary_messages.hpp"

#include <fmt/format.h>

#include "core/remote/quoted_text.hpp"
#include "core/remote/snapshot/sha256.hpp"

namespace errand::remote::wire {

namespace {

// The flags byte of manifest_part and blob frames: bit 0 marks the last piece. Other bits are
// refused rather than ignored, so that a later meaning for them is never silently dropped.
constexpr std::uint8_t kLastPieceFlag = 0x01;
constexpr std::size_t kSequenceBytes = 8;

sdk::Result<bool> read_last_flag(std::string_view message, char byte) {
  const auto flags = static_cast<std::uint8_t>(byte);
  if ((flags & ~kLastPieceFlag) != 0)
    return sdk::refusal(fmt::format("{}: flags byte 0x{:02x} has bits set other than bit 0 (last)",
                                    message, flags));
  return (flags & kLastPieceFlag) != 0;
}

char last_flag_byte(bool last) {
  return last ? static_cast<char>(kLastPieceFlag) : '\0';
}

sdk::Result<Message> refuse_long_data(std::string_view message, std::size_t size) {
  return sdk::refusal(
      fmt::format("{}: {} bytes of data is over the {}-byte limit", message, size, kMaxChunkBytes));
}

sdk::Result<Message> decode_manifest_part(std::string_view payload) {
  if (payload.empty()) return sdk::refusal("manifest_part: the payload has no flags byte");
  auto last = read_last_flag("manifest_part", payload.front());
  if (!last) return last.error();
  const auto text = payload.substr(1);
  if (text.size() > kMaxChunkBytes) return refuse_long_data("manifest_part", text.size());
  if (text.empty() && !*last) return sdk::refusal("manifest_part: a part before the last is empty");
  return ManifestPart{*last, std::string(text)};
}

sdk::Result<Message> decode_blob_chunk(std::string_view payload) {
  constexpr auto kHeaderBytes = kSha256HexLength + 1;
  if (payload.size() < kHeaderBytes)
    return sdk::refusal(
        fmt::format("blob: a payload of {} bytes is shorter than the {}-byte header",
                    payload.size(), kHeaderBytes));
  const auto blob = payload.substr(0, kSha256HexLength);
  if (!is_sha256_hex(blob))
    return sdk::refusal(
        fmt::format("blob: the name {} is not a SHA-256 in lowercase hex", quote_text(blob)));
  auto last = read_last_flag("blob", payload[kSha256HexLength]);
  if (!last) return last.error();
  const auto data = payload.substr(kHeaderBytes);
  if (data.size() > kMaxChunkBytes) return refuse_long_data("blob", data.size());
  if (data.empty() && !*last)
    return sdk::refusal(fmt::format("blob {}: a chunk before the last is empty", blob));
  return BlobChunk{std::string(blob), *last, std::string(data)};
}

sdk::Result<Message> decode_output(std::string_view payload) {
  constexpr auto kHeaderBytes = kSequenceBytes + 1;
  if (payload.size() <= kHeaderBytes)
    return sdk::refusal(
        fmt::format("output: a payload of {} bytes has no data after its {}-byte header",
                    payload.size(), kHeaderBytes));
  std::uint64_t sequence = 0;
  for (std::size_t i = 0; i < kSequenceBytes; ++i)
    sequence = (sequence << 8) | static_cast<std::uint8_t>(payload[i]);
  if (sequence == 0) return sdk::refusal("output: sequence numbers start at 1, not 0");
  const auto stream = static_cast<std::uint8_t>(payload[kSequenceBytes]);
  if (stream != static_cast<std::uint8_t>(OutputStream::standard_output) &&
      stream != static_cast<std::uint8_t>(OutputStream::standard_error))
    return sdk::refusal(
        fmt::format("output: stream byte {} is neither 1 (stdout) nor 2 (stderr)", stream));
  const auto data = payload.substr(kHeaderBytes);
  if (data.size() > kMaxChunkBytes) return refuse_long_data("output", data.size());
  return Output{sequence, static_cast<OutputStream>(stream), std::string(data)};
}

sdk::Result<Message> decode_input(std::string_view payload) {
  if (payload.size() > kMaxChunkBytes) return refuse_long_data("stdin", payload.size());
  return Input{std::string(payload)};
}

sdk::Result<Message> decode_detach(std::string_view payload) {
  if (!payload.empty())
    return sdk::refusal(
        fmt::format("detach: the payload must be empty, not {} bytes", payload.size()));
  return Detach{};
}

}  // namespace

sdk::Result<Message> decode_binary_payload(FrameType type, std::string_view payload) {
  switch (type) {
    case FrameType::manifest_part: return decode_manifest_part(payload);
    case FrameType::blob: return decode_blob_chunk(payload);
    case FrameType::output: return decode_output(payload);
    case FrameType::input: return decode_input(payload);
    case FrameType::detach: return decode_detach(payload);
    default: break;
  }
  return sdk::refusal(fmt::format("{} frames carry JSON, not binary", frame_type_name(type)));
}

std::string payload_of(const ManifestPart& message) {
  std::string payload(1, last_flag_byte(message.last));
  payload += message.text;
  return payload;
}

std::string payload_of(const BlobChunk& message) {
  std::string payload;
  payload.reserve(message.blob.size() + 1 + message.data.size());
  payload += message.blob;
  payload += last_flag_byte(message.last);
  payload += message.data;
  return payload;
}

std::string payload_of(const Output& message) {
  std::string payload;
  payload.reserve(kSequenceBytes + 1 + message.data.size());
  for (int shift = 56; shift >= 0; shift -= 8)
    payload += static_cast<char>((message.sequence >> shift) & 0xff);
  payload += static_cast<char>(message.stream);
  payload += message.data;
  return payload;
}

std::string payload_of(const Input& message) {
  return message.data;
}

std::string payload_of(const Detach&) {
  return {};
}

}  // namespace errand::remote::wire
