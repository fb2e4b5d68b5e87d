#pragma once

// Giving a workspace file its blob's bytes as a copy of its own.
//
// Never a hard link: the job in the sandbox runs as the runner's own account, so it could chmod
// a hard-linked file and write through it into the blob, and every later job given that blob
// would get the altered bytes. A reflink (FICLONE) shares the blob's extents copy-on-write, so it
// costs no space and a write to it touches only the copy; where the filesystem cannot reflink,
// the bytes are copied.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <string_view>

namespace errand::remote {

enum class BlobCopyMethod { reflinked, copied };

// Fills the empty file open for writing at `to` with the `size` bytes of the blob open for
// reading at `from`; `what` names the file in an error.
sdk::Result<BlobCopyMethod> copy_blob_into(int from, int to, std::uint64_t size,
                                           std::string_view what);

}  // namespace errand::remote
