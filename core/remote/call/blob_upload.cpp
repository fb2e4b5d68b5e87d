#include "core/remote/call/blob_upload.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <utility>

#include "common/unique_fd.hpp"
#include "core/remote/call/runner_waits.hpp"
#include "core/remote/call/terminal_writes.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "core/remote/wire/frame.hpp"

namespace errand::remote {

namespace {

constexpr std::string_view kBeforeAdmission = "before the runner admitted the job";

sdk::Error changed_since_selection(const BlobSource& blob, std::string_view how) {
  return sdk::make_error(
      fmt::format("{} changed since it was selected ({}); run again", blob.shown_name, how));
}

// Up to a chunk's worth from fd: less only at the end of the file.
sdk::Result<std::string> read_blob_chunk(int fd) {
  std::string chunk(wire::kMaxChunkBytes, '\0');
  std::size_t filled = 0;
  while (filled < chunk.size()) {
    const ssize_t got = ::read(fd, chunk.data() + filled, chunk.size() - filled);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return sdk::make_error(call_os_reason(errno));
    if (got == 0) break;
    filled += static_cast<std::size_t>(got);
  }
  chunk.resize(filled);
  return chunk;
}

}  // namespace

sdk::Result<void> upload_blob(RunnerChannel& channel, const BlobSource& blob, int interrupts_fd) {
  common::UniqueFd file(::open(blob.file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!file) return changed_since_selection(blob, "it cannot be opened: " + call_os_reason(errno));
  Sha256 hash;
  std::uint64_t size = 0;
  // Each chunk is held back until the next one is read, so the one sent flagged last is known
  // to be last, and is sent only after the whole content is checked.
  std::string held;
  for (;;) {
    auto chunk = read_blob_chunk(file.get());
    if (!chunk) return changed_since_selection(blob, "reading it failed: " + chunk.error().message);
    if (chunk->empty()) break;
    hash.add(*chunk);
    size += chunk->size();
    if (size > blob.size)
      return changed_since_selection(blob,
                                     fmt::format("it is now larger than {} bytes", blob.size));
    if (!held.empty()) {
      if (auto room =
              await_room_to_send(channel, wire::kMaxChunkBytes, interrupts_fd, kBeforeAdmission);
          !room)
        return room;
      channel.send(wire::BlobChunk{.blob = blob.sha256, .last = false, .data = std::move(held)});
    }
    held = std::move(*chunk);
  }
  if (size != blob.size)
    return changed_since_selection(blob,
                                   fmt::format("it now holds {} bytes, not {}", size, blob.size));
  if (hash.finish() != blob.sha256) return changed_since_selection(blob, "its content differs");
  channel.send(wire::BlobChunk{.blob = blob.sha256, .last = true, .data = std::move(held)});
  return {};
}

}  // namespace errand::remote
