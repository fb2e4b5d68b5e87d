#pragma once

// The runner's content-addressed store of file contents (its stateDir/blobs): the blob whose
// SHA-256 is H lives at H[0:2]/H, read-only (0444). A caller sends only the blobs the store
// lacks; a job's workspace is then made from the store with a private copy of each file.
//
// Blobs arrive through a BlobWriter into tmp/ and are renamed into place only once their content
// hashes to their name, so a blob in place is always whole and right. The last time a blob was
// used is its mtime; collect() removes the least recently used ones, never one pinned by a job
// that is about to be (or is being) materialised.
//
// One runner process owns a store: open() removes what a crashed writer left in tmp/.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/remote/jobs/blob_writer.hpp"
#include "core/remote/snapshot/manifest.hpp"

namespace errand::remote {

class BlobStore;

struct BlobUsage {
  std::uint64_t blobs = 0;
  std::uint64_t bytes = 0;
};

// What collect() removed.
struct BlobsCollected {
  std::uint64_t blobs = 0;
  std::uint64_t bytes = 0;
};

// What materialise() made.
struct MaterialiseStats {
  std::uint64_t files = 0;  // files and executables
  std::uint64_t symlinks = 0;
  std::uint64_t directories = 0;  // not counting the workspace itself
  std::uint64_t bytes = 0;
  std::uint64_t reflinked = 0;  // files that share their blob's extents copy-on-write
  std::uint64_t copied = 0;     // files whose bytes were copied
};

// Keeps a set of blobs from collect() while it lives. The runner takes one at admission for the
// job's manifest and lets it go once the workspace is made, so blobs received for a queued job
// are still there when it starts.
class BlobPins {
 public:
  BlobPins(BlobPins&& other) noexcept;
  BlobPins& operator=(BlobPins&&) = delete;
  BlobPins(const BlobPins&) = delete;
  BlobPins& operator=(const BlobPins&) = delete;
  ~BlobPins();

 private:
  friend class BlobStore;
  BlobPins(BlobStore* store, std::vector<std::string> hashes)
      : store_(store), hashes_(std::move(hashes)) {}

  BlobStore* store_;
  std::vector<std::string> hashes_;
};

class BlobStore {
 public:
  // Opens the store at dir, creating it (mode 0700) when absent, and empties its tmp/.
  static sdk::Result<std::unique_ptr<BlobStore>> open(const std::filesystem::path& dir);

  BlobStore(const BlobStore&) = delete;
  BlobStore& operator=(const BlobStore&) = delete;

  const std::filesystem::path& dir() const noexcept { return dir_; }
  // Where the blob named hash lives (whether or not it is there); hash must be is_sha256_hex.
  std::filesystem::path path_of(std::string_view hash) const;
  bool has(std::string_view hash) const;

  // The hashes of the manifest's files that the store lacks, each once, in manifest order.
  std::vector<std::string> missing(const Manifest& manifest) const;

  // Starts receiving the blob named hash, which the manifest says holds expected_size bytes. A
  // name that is not a SHA-256 is refused.
  sdk::Result<BlobWriter> begin(std::string_view hash, std::uint64_t expected_size);
  // The whole of a blob at once: begin, write, finish.
  sdk::Result<void> put(std::string_view hash, std::string_view content);

  BlobPins pin(const Manifest& manifest);

  // Makes the manifest's tree at workspace, which must not exist yet (its parent must): its
  // directories, each file as a private copy of its blob, each symlink with its target. Refused
  // when a blob is missing or an entry's path would lead outside the workspace; on any failure
  // nothing is left at workspace. Marks each blob used.
  sdk::Result<MaterialiseStats> materialise(const Manifest& manifest,
                                            const std::filesystem::path& workspace);

  // Removes least recently used blobs, skipping pinned ones, until the store holds at most
  // max_bytes (or only pinned blobs are left).
  sdk::Result<BlobsCollected> collect(std::uint64_t max_bytes);

  sdk::Result<BlobUsage> usage() const;

 private:
  friend class BlobPins;
  explicit BlobStore(std::filesystem::path dir) : dir_(std::move(dir)) {}
  void unpin(const std::vector<std::string>& hashes) noexcept;
  bool pinned_locked(const std::string& hash) const;

  std::filesystem::path dir_;
  mutable std::mutex pins_mutex_;
  std::unordered_map<std::string, std::size_t> pins_;  // hash -> how many holders
};

}  // namespace errand::remote
