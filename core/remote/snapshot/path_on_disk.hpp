#pragma once

// One path the file selection listed, read as it is on disk now: a file's content hashed and
// counted as it is read (so size and hash always describe the same bytes), a symlink's target,
// or why it cannot be sent.

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string_view>

#include "core/remote/snapshot/manifest.hpp"

namespace errand::remote {

struct PathOnDisk {
  enum class Kind {
    entry,      // a regular file or a symlink: see entry
    directory,  // a directory git lists as one path (a submodule, a nested repository)
    missing,    // nothing there when it was looked at
  };
  Kind kind = Kind::missing;
  ManifestEntry entry;
};

// relative under root. Refused, naming the path: a fifo, socket or device; a symlink whose
// target is absolute or leads outside root; a file that cannot be read, or that vanished or
// changed into something else between being looked at and being opened.
sdk::Result<PathOnDisk> read_path_on_disk(const std::filesystem::path& root,
                                          std::string_view relative);

// The refusal for a listed path that is no longer there (full: its absolute path).
sdk::Error vanished_refusal(const std::filesystem::path& full);

}  // namespace errand::remote
