#pragma once

// Checks a blob's chunks as they arrive (messages.hpp's BlobChunk): one blob at a time, its
// chunks in order, its content hashed on the way so that nothing holds the whole blob, and the
// hash compared with the blob's name at its last chunk. The data itself goes wherever the
// receiver stores it; this only says whether the receiver may keep it.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <optional>
#include <string>

#include "core/remote/snapshot/sha256.hpp"
#include "core/remote/wire/messages.hpp"

namespace errand::remote::wire {

class BlobAssembler {
 public:
  // Takes the next chunk: it starts a blob when none is in progress, and must continue the one
  // in progress otherwise (refused, leaving that blob in progress). True when the chunk was the
  // blob's last and its content hashes to its name; a mismatch is refused and drops the blob,
  // whose data the receiver must then discard.
  sdk::Result<bool> add(const BlobChunk& chunk);

  // The blob in progress (empty when none) and how many of its bytes have arrived.
  const std::string& in_progress() const noexcept { return blob_; }
  std::uint64_t bytes() const noexcept { return bytes_; }

 private:
  void drop() noexcept;

  std::string blob_;
  std::uint64_t bytes_ = 0;
  std::optional<Sha256> hash_;
};

}  // namespace errand::remote::wire
