#pragma once

// One blob being received into the store, in the chunks it arrives in. The bytes go to a
// temporary file in the store's tmp/ and are hashed as they are written; finish() puts the blob
// in place only when they are as many as the manifest said and hash to the blob's name. A writer
// that is refused, or dropped before finish(), removes its temporary file.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "common/unique_fd.hpp"
#include "core/remote/snapshot/sha256.hpp"

namespace errand::remote {

class BlobWriter {
 public:
  BlobWriter(BlobWriter&& other) noexcept;
  BlobWriter& operator=(BlobWriter&&) = delete;
  BlobWriter(const BlobWriter&) = delete;
  BlobWriter& operator=(const BlobWriter&) = delete;
  ~BlobWriter();

  // Refused (and the writer spent) when the bytes so far would exceed the expected size.
  sdk::Result<void> write(std::string_view chunk);
  // Refused when the size or the hash is not what the name promised; otherwise the blob is
  // durable and in place. A blob another writer put in place meanwhile is simply replaced by
  // this identical one.
  sdk::Result<void> finish();

  const std::string& hash() const noexcept { return hash_; }
  std::uint64_t written() const noexcept { return written_; }

 private:
  friend class BlobStore;
  BlobWriter(std::string hash, std::uint64_t expected_size, common::UniqueFd file,
             std::filesystem::path temporary, std::filesystem::path destination);
  // Removes the temporary file; the writer accepts nothing more.
  void abandon() noexcept;
  sdk::Result<void> check_usable() const;

  std::string hash_;
  std::uint64_t expected_size_ = 0;
  std::uint64_t written_ = 0;
  std::unique_ptr<Sha256> hasher_;
  common::UniqueFd file_;
  std::filesystem::path temporary_;
  std::filesystem::path destination_;
  bool spent_ = false;
};

}  // namespace errand::remote
