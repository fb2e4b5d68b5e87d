// BlobStore::materialise: a job's workspace made from the store.
//
// Every directory is made and then opened relative to its parent's descriptor with O_NOFOLLOW,
// and every file is created relative to its directory's descriptor with O_EXCL | O_NOFOLLOW. So
// no entry is ever written through a symlink made earlier in the same tree (a manifest with
// "a" -> "/etc" and then "a/passwd" fails at "a" instead of writing outside the workspace).

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "core/remote/jobs/blob_copy.hpp"
#include "core/remote/jobs/blob_store.hpp"
#include "core/remote/jobs/os_reason.hpp"
#include "core/remote/snapshot/sha256.hpp"

namespace errand::remote {
namespace {

using jobs_detail::os_reason;

// The entry's path split at '/', or nothing when a component is empty, "." or "..", or holds a
// NUL (check_manifest refuses such a manifest already; this is the workspace's own guard).
std::vector<std::string_view> workspace_components(std::string_view path) {
  std::vector<std::string_view> components;
  while (true) {
    const auto slash = path.find('/');
    const auto component = path.substr(0, slash);
    if (component.empty() || component == "." || component == ".." ||
        component.find('\0') != std::string_view::npos)
      return {};
    components.push_back(component);
    if (slash == std::string_view::npos) return components;
    path.remove_prefix(slash + 1);
  }
}

// The directories of the workspace that the previous entry lay in, kept open, so that a sorted
// manifest opens each directory once.
class WorkspaceDirectories {
 public:
  WorkspaceDirectories(common::UniqueFd root, MaterialiseStats& stats)
      : root_(std::move(root)), stats_(stats) {}

  // The descriptor of the directory that holds the entry's last component, making the
  // directories before it as needed.
  sdk::Result<int> parent_of(const std::vector<std::string_view>& components,
                             std::string_view entry_path) {
    const auto depth = components.size() - 1;
    std::size_t shared = 0;
    while (shared < open_.size() && shared < depth && open_[shared].name == components[shared])
      ++shared;
    open_.erase(open_.begin() + static_cast<std::ptrdiff_t>(shared), open_.end());
    for (auto i = shared; i < depth; ++i) {
      const int at = current();
      const std::string name(components[i]);
      const bool made = ::mkdirat(at, name.c_str(), 0755) == 0;
      if (!made && errno != EEXIST)
        return sdk::make_error("entry " + std::string(entry_path) + ": cannot make its directory " +
                               name + ": " + os_reason(errno));
      common::UniqueFd dir(
          ::openat(at, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!dir)
        return sdk::refusal("entry " + std::string(entry_path) + ": its directory " + name +
                            " is not a directory of the workspace (" + os_reason(errno) + ")");
      if (made) {
        // mkdirat's mode passes through the umask; the tree's modes should not depend on it.
        if (::fchmod(dir.get(), 0755) != 0)
          return sdk::make_error("entry " + std::string(entry_path) + ": cannot set the mode of " +
                                 name + ": " + os_reason(errno));
        ++stats_.directories;
      }
      open_.push_back({name, std::move(dir)});
    }
    return current();
  }

 private:
  struct OpenDirectory {
    std::string name;
    common::UniqueFd fd;
  };
  int current() const { return open_.empty() ? root_.get() : open_.back().fd.get(); }

  common::UniqueFd root_;
  MaterialiseStats& stats_;
  std::vector<OpenDirectory> open_;
};

// The file is a copy of its own (a reflink or copied bytes), never a hard link to the blob: the
// job runs as the runner's account and could chmod and write through a link, and every later job
// given the blob would get what it wrote (see blob_copy.hpp).
sdk::Result<void> place_blob_file(const BlobStore& store, const ManifestEntry& entry, int parent,
                                  const std::string& name, MaterialiseStats& stats) {
  const auto blob_path = store.path_of(entry.sha256);
  common::UniqueFd blob(::open(blob_path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!blob)
    return sdk::refusal("entry " + entry.path + ": its blob " + entry.sha256 +
                        " cannot be read from the store: " + os_reason(errno));
  struct stat st {};
  if (::fstat(blob.get(), &st) != 0)
    return sdk::make_error("cannot read the blob " + blob_path.string() + ": " + os_reason(errno));
  if (static_cast<std::uint64_t>(st.st_size) != entry.size)
    return sdk::refusal("entry " + entry.path + ": the manifest gives it " +
                        std::to_string(entry.size) + " bytes but its blob " + entry.sha256 +
                        " holds " + std::to_string(st.st_size));
  common::UniqueFd file(
      ::openat(parent, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!file)
    return sdk::make_error("entry " + entry.path + ": cannot create it: " + os_reason(errno));
  auto method = copy_blob_into(blob.get(), file.get(), entry.size, "entry " + entry.path);
  if (!method) return method.error();
  const mode_t mode = entry.kind == EntryKind::executable ? 0755 : 0644;
  if (::fchmod(file.get(), mode) != 0)
    return sdk::make_error("entry " + entry.path + ": cannot set its mode: " + os_reason(errno));
  ++stats.files;
  stats.bytes += entry.size;
  ++(*method == BlobCopyMethod::reflinked ? stats.reflinked : stats.copied);
  return {};
}

sdk::Result<void> build_workspace(const BlobStore& store, const Manifest& manifest,
                                  const std::filesystem::path& workspace, MaterialiseStats& stats) {
  common::UniqueFd root(::open(workspace.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!root || ::fchmod(root.get(), 0755) != 0)
    return sdk::make_error("cannot open the new workspace " + workspace.string() + ": " +
                           os_reason(errno));
  WorkspaceDirectories directories(std::move(root), stats);
  for (const auto& entry : manifest.entries) {
    const auto components = workspace_components(entry.path);
    auto parent = directories.parent_of(components, entry.path);
    if (!parent) return parent.error();
    const std::string name(components.back());
    if (entry.kind == EntryKind::symlink) {
      if (::symlinkat(entry.target.c_str(), *parent, name.c_str()) != 0)
        return sdk::make_error("entry " + entry.path +
                               ": cannot make the symlink: " + os_reason(errno));
      ++stats.symlinks;
      continue;
    }
    if (auto placed = place_blob_file(store, entry, *parent, name, stats); !placed) return placed;
  }
  return {};
}

// Refuses before anything is made: every path a plain relative one, every blob in the store.
sdk::Result<void> check_workspace_inputs(const BlobStore& store, const Manifest& manifest) {
  for (const auto& entry : manifest.entries) {
    if (workspace_components(entry.path).empty())
      return sdk::refusal("entry \"" + entry.path +
                          "\" is not a relative path of plain names; no workspace was made");
    if (entry.kind == EntryKind::symlink) continue;
    if (!is_sha256_hex(entry.sha256))
      return sdk::refusal("entry " + entry.path + " names no valid blob; no workspace was made");
    if (!store.has(entry.sha256))
      return sdk::refusal("blob " + entry.sha256 + " (for " + entry.path +
                          ") is not in the store; no workspace was made");
  }
  return {};
}

}  // namespace

sdk::Result<MaterialiseStats> BlobStore::materialise(const Manifest& manifest,
                                                     const std::filesystem::path& workspace) {
  // Pinned first, so collect() cannot take a blob between the check below and its copy.
  const auto pins = pin(manifest);
  if (auto inputs = check_workspace_inputs(*this, manifest); !inputs) return inputs.error();
  if (::mkdir(workspace.c_str(), 0700) != 0) {
    if (errno == EEXIST)
      return sdk::refusal("the workspace " + workspace.string() + " exists already");
    return sdk::make_error("cannot make the workspace " + workspace.string() + ": " +
                           os_reason(errno));
  }
  MaterialiseStats stats;
  if (auto built = build_workspace(*this, manifest, workspace, stats); !built) {
    // The workspace is this call's own (mkdir made it), so removing it removes nobody's work;
    // remove_all does not follow the symlinks in it.
    std::error_code ignored;
    std::filesystem::remove_all(workspace, ignored);
    return built.error();
  }
  // Marks each blob used now, for collect()'s order. The owner may set the times of its 0444
  // files; a failure only makes the blob look older than it is, so it is not the job's failure.
  for (const auto& hash : pins.hashes_) ::utimensat(AT_FDCWD, path_of(hash).c_str(), nullptr, 0);
  return stats;
}

}  // namespace errand::remote
