#pragma once

// A manifest travels after its admit in manifest_part frames (messages.hpp's ManifestPart):
// a million entries are tens of MiB of JSON, more than one frame holds. The sender splits its
// encoded text; the receiver puts the parts back together, bounded, and decodes the whole.

#include <errand/sdk/result.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/remote/snapshot/manifest.hpp"
#include "core/remote/wire/messages.hpp"

namespace errand::remote::wire {

// The parts that carry the text (encode_manifest's), each at most part_bytes (at most
// kMaxChunkBytes), the last one flagged; empty text is one empty last part.
std::vector<ManifestPart> split_manifest(std::string_view encoded,
                                         std::size_t part_bytes = kMaxChunkBytes);

class ManifestAssembler {
 public:
  // Takes the next part. Nothing until the last part; then the manifest the parts' text
  // decodes to (decode_manifest), after which the assembler is ready for another. Refuses
  // text beyond kMaxManifestBytes as soon as a part takes it there, and a manifest that does
  // not decode; either leaves the assembler empty.
  sdk::Result<std::optional<Manifest>> add(const ManifestPart& part);

  std::size_t bytes() const noexcept { return text_.size(); }

 private:
  std::string text_;
};

}  // namespace errand::remote::wire
