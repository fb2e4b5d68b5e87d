// libFuzzer target for remote-run's wire protocol: whatever bytes a peer sends, the frame
// reader cuts the same frames out of them however the socket splits them, and every frame it
// yields either is refused or decodes to a message that decodes back to itself from its own
// encoding. Blob chunks and manifest parts also go through their assemblers.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/remote/snapshot/manifest.hpp"
#include "core/remote/wire/blob_assembler.hpp"
#include "core/remote/wire/frame_reader.hpp"
#include "core/remote/wire/manifest_parts.hpp"
#include "core/remote/wire/messages.hpp"

namespace {

namespace wire = errand::remote::wire;

void check(bool condition) {
  if (!condition) std::abort();
}

// What a reader made of a stream: its frames, then the refusal that stopped it, if one did.
struct Reading {
  std::vector<wire::Frame> frames;
  std::optional<std::string> refusal;
};

// Feeds the bytes in pieces of the given sizes (cycled), taking frames out after each piece as
// a connection's read loop does.
Reading read_in_pieces(std::string_view bytes, const std::vector<std::size_t>& piece_sizes) {
  wire::FrameReader reader;
  Reading reading;
  std::size_t piece = 0;
  while (!bytes.empty() && !reading.refusal) {
    const auto size = piece_sizes[piece++ % piece_sizes.size()];
    reader.feed(bytes.substr(0, size));
    bytes.remove_prefix(std::min(size, bytes.size()));
    for (;;) {
      auto next = reader.next();
      if (!next) {
        reading.refusal = next.error().message;
        check(reader.failed());
        break;
      }
      if (!*next) break;
      reading.frames.push_back(std::move(**next));
    }
  }
  return reading;
}

void check_round_trip(const wire::Message& message) {
  const auto bytes = wire::encode_message(message);
  wire::FrameReader reader;
  reader.feed(bytes);
  auto frame = reader.next();
  check(frame.has_value() && frame->has_value());
  check((*frame)->type == wire::frame_type_of(message));
  check(reader.check_clean_end().has_value());
  auto again = wire::decode_message(**frame);
  check(again.has_value());
  check(*again == message);
}

void assemble(const wire::Message& message, wire::BlobAssembler& blobs,
              wire::ManifestAssembler& manifests) {
  if (const auto* chunk = std::get_if<wire::BlobChunk>(&message)) {
    const auto before = blobs.in_progress();
    auto added = blobs.add(*chunk);
    // A chunk of another blob is refused and leaves the one in progress as it was.
    if (!before.empty() && before != chunk->blob) check(!added && blobs.in_progress() == before);
    if (added && *added) check(blobs.in_progress().empty());
  } else if (const auto* part = std::get_if<wire::ManifestPart>(&message)) {
    auto added = manifests.add(*part);
    if (added && *added) {
      const auto& manifest = **added;
      auto decoded = errand::remote::decode_manifest(errand::remote::encode_manifest(manifest));
      check(decoded.has_value() && *decoded == manifest);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto whole = read_in_pieces(bytes, {size + 1});
  const auto split = read_in_pieces(bytes, {1, 3, 13, 64, 2, 1000});
  check(whole.frames == split.frames);
  check(whole.refusal == split.refusal);

  wire::BlobAssembler blobs;
  wire::ManifestAssembler manifests;
  for (const auto& frame : whole.frames) {
    auto message = wire::decode_message(frame);
    if (!message) {
      check(!message.error().message.empty());
      continue;
    }
    check(wire::frame_type_of(*message) == frame.type);
    check_round_trip(*message);
    // A binary payload has one spelling, so its encoding is the very payload it came from.
    if (frame.type == wire::FrameType::blob || frame.type == wire::FrameType::output ||
        frame.type == wire::FrameType::input || frame.type == wire::FrameType::manifest_part ||
        frame.type == wire::FrameType::detach)
      check(wire::encode_payload(*message) == frame.payload);
    assemble(*message, blobs, manifests);
  }
  return 0;
}
