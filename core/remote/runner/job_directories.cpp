#include "core/remote/runner/job_directories.hpp"

#include <sys/stat.h>

#include <system_error>

namespace errand::remote {

namespace fs = std::filesystem;

namespace {

sdk::Result<void> make_private_directory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directory(dir, ec);
  if (ec) return sdk::make_error("could not create " + dir.string() + ": " + ec.message());
  if (::chmod(dir.c_str(), 0700) != 0)
    return sdk::make_error("could not make " + dir.string() + " private");
  return {};
}

// Gives the owner back every right on each directory below dir (never following a symlink),
// so that remove_all can list and empty what the job shut.
void reopen_directories(const fs::path& dir) {
  std::error_code ec;
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, ec);
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec) && !it->is_symlink(ec)) reopen_directories(it->path());
}

// Empty when the tree at path is gone (or never was), else why not.
std::string remove_tree(const fs::path& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (!ec) return {};
  reopen_directories(path);
  ec.clear();
  fs::remove_all(path, ec);
  return ec ? "could not remove " + path.string() + ": " + ec.message() : std::string();
}

}  // namespace

sdk::Result<MaterialiseStats> prepare_job_directories(const JobPaths& paths,
                                                      const std::optional<Manifest>& manifest,
                                                      BlobStore& blobs) {
  if (const auto stale = remove_tree(paths.root); !stale.empty()) return sdk::make_error(stale);
  std::error_code ec;
  fs::create_directories(paths.root.parent_path(), ec);
  if (ec)
    return sdk::make_error("could not create " + paths.root.parent_path().string() + ": " +
                           ec.message());
  for (const auto* dir : {&paths.root, &paths.state, &paths.record})
    if (auto made = make_private_directory(*dir); !made) return made.error();
  if (!manifest) {
    if (auto made = make_private_directory(paths.workspace); !made) return made.error();
    return MaterialiseStats{};
  }
  return blobs.materialise(*manifest, paths.workspace);
}

JobTreeRemoval remove_job_tree(const JobPaths& paths) {
  JobTreeRemoval removal;
  for (const auto* dir : {&paths.workspace, &paths.state}) {
    const auto failed = remove_tree(*dir);
    if (failed.empty()) continue;
    removal.detail += (removal.detail.empty() ? "" : "; ") + failed;
  }
  removal.removed = removal.detail.empty();
  return removal;
}

}  // namespace errand::remote
