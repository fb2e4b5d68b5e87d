// decode_manifest (manifest.hpp): the manifest a caller sent, read with Boost.JSON, whose parser
// holds any bytes safely and in memory proportional to them, then held to the manifest's rules.

#include <fmt/format.h>

#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/value.hpp>
#include <limits>
#include <optional>
#include <string>

#include "core/remote/quoted_text.hpp"
#include "core/remote/snapshot/manifest.hpp"
#include "core/remote/snapshot/manifest_rules.hpp"

namespace errand::remote {
namespace {

sdk::Error manifest_row_refusal(std::size_t index, std::string_view rule) {
  return sdk::refusal(fmt::format("manifest entry {}: {}", index, rule));
}

sdk::Error manifest_field_refusal(std::size_t index, std::string_view path, std::string_view rule) {
  return sdk::refusal(fmt::format("{}: {}", manifest_entry_label(index, path), rule));
}

std::optional<std::uint64_t> manifest_row_size(const boost::json::value& value) {
  if (value.is_uint64()) return value.get_uint64();
  if (value.is_int64() && value.get_int64() >= 0)
    return static_cast<std::uint64_t>(value.get_int64());
  return std::nullopt;
}

std::optional<EntryKind> manifest_kind_named(std::string_view letter) {
  if (letter == "f") return EntryKind::file;
  if (letter == "x") return EntryKind::executable;
  if (letter == "l") return EntryKind::symlink;
  return std::nullopt;
}

sdk::Result<ManifestEntry> manifest_entry_of_row(std::size_t index, const boost::json::value& row) {
  const auto* fields = row.if_array();
  if (fields == nullptr || fields->size() != 4)
    return manifest_row_refusal(index,
                                "not an array of 4 elements [path, kind, size, sha256-or-target]");
  const auto* path = (*fields)[0].if_string();
  if (path == nullptr) return manifest_row_refusal(index, "the path is not a string");
  ManifestEntry entry;
  entry.path = std::string(*path);
  const auto* letter = (*fields)[1].if_string();
  if (letter == nullptr)
    return manifest_field_refusal(index, entry.path, "the kind is not a string");
  const auto kind = manifest_kind_named(*letter);
  if (!kind)
    return manifest_field_refusal(
        index, entry.path,
        fmt::format("the kind {} is not \"f\", \"x\" or \"l\"", quote_text(*letter)));
  entry.kind = *kind;
  const auto size = manifest_row_size((*fields)[2]);
  if (!size)
    return manifest_field_refusal(index, entry.path,
                                  fmt::format("the size is not a whole number from 0 to {}",
                                              std::numeric_limits<std::uint64_t>::max()));
  entry.size = *size;
  const auto* last = (*fields)[3].if_string();
  if (last == nullptr)
    return manifest_field_refusal(
        index, entry.path,
        "the fourth element (a file's sha256 or a symlink's target) is not a "
        "string");
  (entry.kind == EntryKind::symlink ? entry.target : entry.sha256) = std::string(*last);
  return entry;
}

}  // namespace

sdk::Result<Manifest> decode_manifest(std::string_view text) {
  boost::json::parse_options options;
  options.max_depth = 2;  // an array of arrays, nothing deeper
  boost::system::error_code error;
  const boost::json::value value = boost::json::parse(text, error, {}, options);
  if (error)
    return sdk::refusal(
        fmt::format("the manifest is not JSON of at most two levels: {}", error.message()));
  const auto* rows = value.if_array();
  if (rows == nullptr) return sdk::refusal("the manifest is not a JSON array of entries");
  if (auto checked = check_manifest_size(rows->size()); !checked) return checked.error();

  Manifest manifest;
  manifest.entries.reserve(rows->size());
  for (std::size_t index = 0; index < rows->size(); ++index) {
    auto entry = manifest_entry_of_row(index, (*rows)[index]);
    if (!entry) return entry.error();
    const ManifestEntry* previous = index == 0 ? nullptr : &manifest.entries.back();
    if (auto checked = check_manifest_entry(index, *entry, previous); !checked)
      return checked.error();
    manifest.entries.push_back(std::move(*entry));
  }
  if (auto checked = check_manifest_tree(manifest.entries); !checked) return checked.error();
  return manifest;
}

}  // namespace errand::remote
