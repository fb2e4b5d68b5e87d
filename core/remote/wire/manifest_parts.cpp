#include "core/remote/wire/manifest_parts.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace errand::remote::wire {

std::vector<ManifestPart> split_manifest(std::string_view encoded, std::size_t part_bytes) {
  part_bytes = std::clamp<std::size_t>(part_bytes, 1, kMaxChunkBytes);
  std::vector<ManifestPart> parts;
  do {
    const auto piece = encoded.substr(0, part_bytes);
    encoded.remove_prefix(piece.size());
    parts.push_back(ManifestPart{encoded.empty(), std::string(piece)});
  } while (!encoded.empty());
  return parts;
}

sdk::Result<std::optional<Manifest>> ManifestAssembler::add(const ManifestPart& part) {
  if (part.text.size() > kMaxManifestBytes - text_.size()) {
    const auto total = text_.size() + part.text.size();
    text_ = {};
    return sdk::refusal(fmt::format("the manifest's parts reach {} bytes, over the {}-byte limit",
                                    total, kMaxManifestBytes));
  }
  text_ += part.text;
  if (!part.last) return std::optional<Manifest>{};
  auto manifest = decode_manifest(text_);
  text_ = {};
  if (!manifest) return manifest.error();
  return std::optional<Manifest>(std::move(*manifest));
}

}  // namespace errand::remote::wire
