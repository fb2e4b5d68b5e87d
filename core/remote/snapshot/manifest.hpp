#pragma once

// What a job's working tree is: every file the caller selected, by relative path, with its
// content's SHA-256 and size and whether it is executable, and every symlink with its target.
// The caller sends it at admission; the runner answers which blobs it lacks and materialises the
// tree from its blob store. Directories are implied by the paths (an empty one is not carried, as
// git carries none).

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace errand::remote {

enum class EntryKind { file, executable, symlink };

struct ManifestEntry {
  // Relative, '/'-separated, with no empty, "." or ".." component, no NUL and no leading or
  // trailing '/'; UTF-8, since the encoding is JSON text.
  std::string path;
  EntryKind kind = EntryKind::file;
  std::uint64_t size = 0;  // the file's bytes; 0 for a symlink
  std::string sha256;      // the content's hash (is_sha256_hex); empty for a symlink
  // A symlink's target as the link holds it: relative, and resolving, from the link's own
  // directory, to a path inside the tree; told from its names alone, so a ".." may not come
  // after passing through another of the manifest's symlinks (symlink_target.hpp). Empty for a
  // file.
  std::string target;

  bool operator==(const ManifestEntry&) const = default;
};

// Entries sorted by path (bytewise), each path once, no path both a file and the directory of
// another.
struct Manifest {
  std::vector<ManifestEntry> entries;

  std::uint64_t total_bytes() const noexcept;
  std::size_t file_count() const noexcept;  // files and executables, not symlinks
  bool operator==(const Manifest&) const = default;
};

// Bounds on what a runner accepts, so a manifest cannot make it hold unbounded state.
inline constexpr std::size_t kManifestMaxEntries = 1'000'000;
inline constexpr std::size_t kManifestMaxPathBytes = 4096;
inline constexpr std::size_t kManifestMaxComponentBytes = 255;

// The one encoding: a JSON array of [path, kind, size, sha256-or-target] rows in entry order,
// kind being "f", "x" or "l". The same manifest always encodes to the same bytes, which is what
// manifest_hash hashes.
std::string encode_manifest(const Manifest& manifest);

// The manifest the text encodes, or a refusal naming the first entry that breaks a rule above
// (its index and path) and which rule. Input from the network: any bytes are handled.
sdk::Result<Manifest> decode_manifest(std::string_view text);

// Checks the rules above on a manifest built in memory (decode_manifest applies the same ones).
sdk::Result<void> check_manifest(const Manifest& manifest);

// SHA-256 of encode_manifest(manifest): what a receipt records as the tree that was asked for.
std::string manifest_hash(const Manifest& manifest);

}  // namespace errand::remote
