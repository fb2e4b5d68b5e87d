#include "core/remote/wire/blob_assembler.hpp"

#include <fmt/format.h>

namespace errand::remote::wire {

sdk::Result<bool> BlobAssembler::add(const BlobChunk& chunk) {
  if (!hash_) {
    blob_ = chunk.blob;
    bytes_ = 0;
    hash_.emplace();
  } else if (chunk.blob != blob_) {
    return sdk::refusal(
        fmt::format("a chunk of blob {} arrived while blob {} is not complete", chunk.blob, blob_));
  }
  hash_->add(chunk.data);
  bytes_ += chunk.data.size();
  if (!chunk.last) return false;
  const auto content = hash_->finish();
  const auto named = blob_;
  drop();
  if (content != named)
    return sdk::refusal(fmt::format("blob {}: content hashes to {}", named, content));
  return true;
}

void BlobAssembler::drop() noexcept {
  hash_.reset();
  blob_.clear();
  bytes_ = 0;
}

}  // namespace errand::remote::wire
