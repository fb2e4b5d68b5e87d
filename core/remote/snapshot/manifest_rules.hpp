#pragma once

// The rules of manifest.hpp, split so that decode_manifest can apply an entry's own rules as it
// reads each row, and check_manifest the same ones to a manifest built in memory. Each refusal
// names the entry (index and path) and the rule it breaks.

#include <cstddef>
#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/remote/snapshot/manifest.hpp"

namespace errand::remote {

// "manifest entry 3 ("src/a.c")": how a refusal names an entry.
std::string manifest_entry_label(std::size_t index, std::string_view path);

// The first reason path is not a relative, normalised tree path within the bounds, as the end
// of a sentence ("the path has a \"..\" component"); empty when it is one.
std::string manifest_path_problem(std::string_view path);

// The rules an entry keeps by itself, and its order after the entry before it (previous is null
// for the first).
sdk::Result<void> check_manifest_entry(std::size_t index, const ManifestEntry& entry,
                                       const ManifestEntry* previous);

// The rules across entries that each passed check_manifest_entry (so they are sorted): no path
// both an entry and the directory of another, and every symlink target leading inside the tree.
sdk::Result<void> check_manifest_tree(const std::vector<ManifestEntry>& entries);

// The refusal for a manifest with more than kManifestMaxEntries entries, or nothing.
sdk::Result<void> check_manifest_size(std::size_t entries);

}  // namespace errand::remote
