#include "core/remote/jobs/blob_store.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <unordered_set>
#include <utility>

#include "core/remote/jobs/os_reason.hpp"
#include "core/remote/snapshot/sha256.hpp"

namespace errand::remote {
namespace {

using jobs_detail::os_reason;

constexpr std::string_view kBlobTemporaryDir = "tmp";

// A blob as collect() and usage() see it on disk.
struct StoredBlob {
  std::string hash;
  std::uint64_t bytes = 0;
  struct timespec last_used {};
};

// A name from the network shown in a message, cut short so a long one cannot flood a log.
std::string quoted_blob_name(std::string_view name) {
  constexpr std::size_t kShown = 80;
  if (name.size() <= kShown) return "\"" + std::string(name) + "\"";
  return "\"" + std::string(name.substr(0, kShown)) + "...\"";
}

sdk::Result<void> make_store_directory(const std::filesystem::path& dir) {
  if (::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return {};
    return sdk::make_error("the blob store's directory " + dir.string() +
                           " is not a directory (or not one errand can use)");
  }
  return sdk::make_error("cannot make the blob store's directory " + dir.string() + ": " +
                         os_reason(errno));
}

// What a writer killed mid-blob left behind is removed at open, before any writer of this
// process can have made a temporary file.
sdk::Result<void> empty_blob_temporaries(const std::filesystem::path& dir) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code remove_ec;
    std::filesystem::remove_all(it->path(), remove_ec);
    if (remove_ec)
      return sdk::make_error("cannot remove the unfinished blob " + it->path().string() + ": " +
                             remove_ec.message());
  }
  if (ec)
    return sdk::make_error("cannot list the blob store's temporary directory " + dir.string() +
                           ": " + ec.message());
  return {};
}

bool is_blob_prefix_name(std::string_view name) {
  const auto lower_hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  return name.size() == 2 && lower_hex(name[0]) && lower_hex(name[1]);
}

sdk::Result<std::vector<StoredBlob>> list_stored_blobs(const std::filesystem::path& dir) {
  std::vector<StoredBlob> blobs;
  std::error_code ec;
  for (std::filesystem::directory_iterator top(dir, ec), end; !ec && top != end;
       top.increment(ec)) {
    const auto prefix = top->path().filename().string();
    if (!is_blob_prefix_name(prefix)) continue;
    std::error_code inner_ec;
    for (std::filesystem::directory_iterator it(top->path(), inner_ec), inner_end;
         !inner_ec && it != inner_end; it.increment(inner_ec)) {
      auto name = it->path().filename().string();
      if (!is_sha256_hex(name) || name.compare(0, 2, prefix) != 0) continue;
      struct stat st {};
      if (::lstat(it->path().c_str(), &st) != 0) {
        if (errno == ENOENT) continue;  // collected meanwhile
        return sdk::make_error("cannot read the blob " + it->path().string() + ": " +
                               os_reason(errno));
      }
      if (!S_ISREG(st.st_mode)) continue;
      blobs.push_back({std::move(name), static_cast<std::uint64_t>(st.st_size), st.st_mtim});
    }
    if (inner_ec && inner_ec != std::errc::no_such_file_or_directory)
      return sdk::make_error("cannot list the blob directory " + top->path().string() + ": " +
                             inner_ec.message());
  }
  if (ec)
    return sdk::make_error("cannot list the blob store " + dir.string() + ": " + ec.message());
  return blobs;
}

bool blob_used_earlier(const StoredBlob& a, const StoredBlob& b) {
  if (a.last_used.tv_sec != b.last_used.tv_sec) return a.last_used.tv_sec < b.last_used.tv_sec;
  if (a.last_used.tv_nsec != b.last_used.tv_nsec) return a.last_used.tv_nsec < b.last_used.tv_nsec;
  return a.hash < b.hash;
}

}  // namespace

BlobPins::BlobPins(BlobPins&& other) noexcept
    : store_(std::exchange(other.store_, nullptr)), hashes_(std::move(other.hashes_)) {}

BlobPins::~BlobPins() {
  if (store_) store_->unpin(hashes_);
}

sdk::Result<std::unique_ptr<BlobStore>> BlobStore::open(const std::filesystem::path& dir) {
  if (auto made = make_store_directory(dir); !made) return made.error();
  const auto temporaries = dir / kBlobTemporaryDir;
  if (auto made = make_store_directory(temporaries); !made) return made.error();
  if (auto emptied = empty_blob_temporaries(temporaries); !emptied) return emptied.error();
  return std::unique_ptr<BlobStore>(new BlobStore(dir));
}

std::filesystem::path BlobStore::path_of(std::string_view hash) const {
  return dir_ / std::string(hash.substr(0, 2)) / std::string(hash);
}

bool BlobStore::has(std::string_view hash) const {
  if (!is_sha256_hex(hash)) return false;
  struct stat st {};
  return ::lstat(path_of(hash).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string> BlobStore::missing(const Manifest& manifest) const {
  std::vector<std::string> lacking;
  std::unordered_set<std::string_view> seen;
  for (const auto& entry : manifest.entries) {
    if (entry.kind == EntryKind::symlink) continue;
    if (!seen.insert(entry.sha256).second) continue;
    if (!has(entry.sha256)) lacking.push_back(entry.sha256);
  }
  return lacking;
}

sdk::Result<BlobWriter> BlobStore::begin(std::string_view hash, std::uint64_t expected_size) {
  if (!is_sha256_hex(hash))
    return sdk::refusal("a blob is named by its SHA-256 in 64 lowercase hexadecimal digits, not " +
                        quoted_blob_name(hash));
  auto pattern = (dir_ / kBlobTemporaryDir / (std::string(hash) + ".XXXXXX")).string();
  common::UniqueFd file(::mkostemp(pattern.data(), O_CLOEXEC));
  if (!file)
    return sdk::make_error("blob " + std::string(hash) + ": cannot make a temporary file in " +
                           (dir_ / kBlobTemporaryDir).string() + ": " + os_reason(errno));
  return BlobWriter(std::string(hash), expected_size, std::move(file), pattern, path_of(hash));
}

sdk::Result<void> BlobStore::put(std::string_view hash, std::string_view content) {
  auto writer = begin(hash, content.size());
  if (!writer) return writer.error();
  if (auto written = writer->write(content); !written) return written;
  return writer->finish();
}

BlobPins BlobStore::pin(const Manifest& manifest) {
  std::vector<std::string> hashes;
  for (const auto& entry : manifest.entries)
    if (entry.kind != EntryKind::symlink) hashes.push_back(entry.sha256);
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  std::lock_guard lock(pins_mutex_);
  for (const auto& hash : hashes) ++pins_[hash];
  return BlobPins(this, std::move(hashes));
}

void BlobStore::unpin(const std::vector<std::string>& hashes) noexcept {
  std::lock_guard lock(pins_mutex_);
  for (const auto& hash : hashes) {
    const auto it = pins_.find(hash);
    if (it != pins_.end() && --it->second == 0) pins_.erase(it);
  }
}

bool BlobStore::pinned_locked(const std::string& hash) const {
  return pins_.contains(hash);
}

sdk::Result<BlobsCollected> BlobStore::collect(std::uint64_t max_bytes) {
  auto blobs = list_stored_blobs(dir_);
  if (!blobs) return blobs.error();
  std::uint64_t total = 0;
  for (const auto& blob : *blobs) total += blob.bytes;
  std::sort(blobs->begin(), blobs->end(), blob_used_earlier);
  BlobsCollected collected;
  for (const auto& blob : *blobs) {
    if (total <= max_bytes) break;
    // The pin check and the unlink happen under one lock, so a materialisation that pins a blob
    // either sees it gone (and says which is missing) or keeps it.
    std::lock_guard lock(pins_mutex_);
    if (pinned_locked(blob.hash)) continue;
    const auto path = path_of(blob.hash);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      return sdk::make_error("cannot remove the blob " + path.string() + ": " + os_reason(errno));
    total -= blob.bytes;
    ++collected.blobs;
    collected.bytes += blob.bytes;
  }
  return collected;
}

sdk::Result<BlobUsage> BlobStore::usage() const {
  auto blobs = list_stored_blobs(dir_);
  if (!blobs) return blobs.error();
  BlobUsage usage;
  for (const auto& blob : *blobs) {
    ++usage.blobs;
    usage.bytes += blob.bytes;
  }
  return usage;
}

}  // namespace errand::remote
