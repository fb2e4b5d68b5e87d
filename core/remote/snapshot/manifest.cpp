#include "core/remote/snapshot/manifest.hpp"

#include <fmt/format.h>

#include <limits>

#include "core/remote/snapshot/manifest_rules.hpp"
#include "core/remote/snapshot/sha256.hpp"

namespace errand::remote {
namespace {

// Written by hand rather than by a JSON library so that the bytes, and with them every recorded
// manifest_hash, never change with a library's version: only '"', '\' and control bytes are
// escaped, always the same way, and everything else is copied as it is.
void append_manifest_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20) {
      out += fmt::format("\\u{:04x}", byte);
    } else {
      out += c;
    }
  }
  out += '"';
}

char manifest_kind_letter(EntryKind kind) {
  switch (kind) {
    case EntryKind::file: return 'f';
    case EntryKind::executable: return 'x';
    case EntryKind::symlink: return 'l';
  }
  return '?';
}

}  // namespace

std::uint64_t Manifest::total_bytes() const noexcept {
  // Sizes from the network can be anything up to 2^64 - 1; the sum stops at the largest value
  // rather than wrap to a small one.
  std::uint64_t total = 0;
  for (const auto& entry : entries) {
    if (entry.size > std::numeric_limits<std::uint64_t>::max() - total)
      return std::numeric_limits<std::uint64_t>::max();
    total += entry.size;
  }
  return total;
}

std::size_t Manifest::file_count() const noexcept {
  std::size_t count = 0;
  for (const auto& entry : entries)
    if (entry.kind != EntryKind::symlink) ++count;
  return count;
}

std::string encode_manifest(const Manifest& manifest) {
  std::string out = "[";
  for (const auto& entry : manifest.entries) {
    if (out.size() > 1) out += ',';
    out += '[';
    append_manifest_json_string(out, entry.path);
    out += ",\"";
    out += manifest_kind_letter(entry.kind);
    out += "\",";
    out += std::to_string(entry.size);
    out += ',';
    append_manifest_json_string(out,
                                entry.kind == EntryKind::symlink ? entry.target : entry.sha256);
    out += ']';
  }
  out += ']';
  return out;
}

sdk::Result<void> check_manifest(const Manifest& manifest) {
  if (auto checked = check_manifest_size(manifest.entries.size()); !checked) return checked;
  const ManifestEntry* previous = nullptr;
  for (std::size_t index = 0; index < manifest.entries.size(); ++index) {
    const ManifestEntry& entry = manifest.entries[index];
    if (auto checked = check_manifest_entry(index, entry, previous); !checked) return checked;
    previous = &entry;
  }
  return check_manifest_tree(manifest.entries);
}

std::string manifest_hash(const Manifest& manifest) {
  return sha256_hex(encode_manifest(manifest));
}

}  // namespace errand::remote
