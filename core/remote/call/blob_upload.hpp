#pragma once

// Sends one blob the runner asked for, read from the file the selection found it in. The file
// may have changed since it was selected, so it is hashed again on the way; a change stops the
// call before the blob's last chunk goes out, so the runner never takes the wrong content.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>

#include "core/remote/call/runner_channel.hpp"

namespace errand::remote {

struct BlobSource {
  std::string sha256;          // the content the manifest promises
  std::uint64_t size = 0;      // and its size
  std::filesystem::path file;  // where to read it
  std::string shown_name;      // how the user knows the file: its path in the tree
};

// Queues the blob in chunks of at most wire::kMaxChunkBytes, waiting for room so that no more
// than about two chunks are held at once. Errors: the file cannot be read, or its content or
// size is no longer what was selected ("NAME changed since it was selected; run again"); the
// connection is lost (unavailable); the user interrupted (cancelled).
sdk::Result<void> upload_blob(RunnerChannel& channel, const BlobSource& blob, int interrupts_fd);

}  // namespace errand::remote
