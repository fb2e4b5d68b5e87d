#include "core/remote/snapshot/file_selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "core/remote/snapshot/git_command.hpp"
#include "core/remote/snapshot/git_listing.hpp"
#include "core/remote/snapshot/path_on_disk.hpp"
#include "core/remote/snapshot/tree_walk.hpp"

namespace errand::remote {
namespace {

struct SelectionListedPath {
  std::string path;
  // Tracked by git: missing from disk means deleted in the work tree, not vanished meanwhile.
  bool tracked = false;
  bool operator<(const SelectionListedPath& other) const { return path < other.path; }
};

struct SelectionListing {
  SelectionSource source = SelectionSource::git_worktree;
  std::vector<SelectionListedPath> paths;
};

// Whether inner is outer or somewhere under it, component by component (both canonical).
bool is_same_directory_or_under(const std::filesystem::path& inner,
                                const std::filesystem::path& outer) {
  return std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end()).first == outer.end();
}

sdk::Result<void> check_not_home(const std::filesystem::path& root,
                                 const std::filesystem::path& given_home) {
  if (given_home.empty()) return {};
  std::error_code error;
  auto home = std::filesystem::weakly_canonical(given_home, error);
  if (error) home = given_home;
  if (!is_same_directory_or_under(home, root)) return {};
  const auto what = home == root ? std::string("your whole home directory")
                                 : fmt::format("your whole home directory ({})", home.string());
  return sdk::refusal(fmt::format(
      "refusing to send {}: it would send {}; run errand in a project's directory, or pass "
      "--include-all to mean it",
      root.string(), what));
}

sdk::Result<std::filesystem::path> checked_selection_root(const SelectionOptions& options) {
  if (options.root.empty()) return sdk::refusal("no directory to send was given");
  std::error_code error;
  auto root = std::filesystem::canonical(options.root, error);
  if (error)
    return sdk::refusal(fmt::format("cannot send {}: {}", options.root.string(), error.message()));
  if (!std::filesystem::is_directory(root, error))
    return sdk::refusal(fmt::format("cannot send {}: it is not a directory", root.string()));
  if (root == root.root_path())
    return sdk::refusal(fmt::format(
        "refusing to send {}: it is the whole filesystem; run errand in a project's directory",
        root.string()));
  if (!options.include_all)
    if (auto checked = check_not_home(root, options.home); !checked) return checked.error();
  return root;
}

std::vector<SelectionListedPath> as_listed_paths(std::vector<std::string> paths, bool tracked) {
  std::vector<SelectionListedPath> result;
  result.reserve(paths.size());
  for (auto& path : paths) result.push_back({std::move(path), tracked});
  return result;
}

sdk::Result<SelectionListing> list_selected_paths(const std::filesystem::path& root,
                                                  bool include_all) {
  const auto git = find_git_on_path();
  auto worktree = find_git_worktree(git, root);
  if (!worktree) return worktree.error();
  SelectionListing listing;
  if (*worktree) {
    auto files = list_git_worktree(*git, root);
    if (!files) return files.error();
    listing.source = SelectionSource::git_worktree;
    listing.paths = as_listed_paths(std::move(files->tracked), true);
    auto untracked = as_listed_paths(std::move(files->untracked), false);
    listing.paths.insert(listing.paths.end(), untracked.begin(), untracked.end());
    return listing;
  }
  std::error_code error;
  if (std::filesystem::exists(std::filesystem::symlink_status(root / kErrandIgnoreFile, error))) {
    if (!git)
      return sdk::refusal(fmt::format(
          "cannot read {}: it is read with git's own gitignore rules, and git is not on PATH; "
          "install git or put it on PATH",
          (root / kErrandIgnoreFile).string()));
    auto paths = list_not_ignored(*git, root, kErrandIgnoreFile);
    if (!paths) return paths.error();
    listing.source = SelectionSource::errandignore;
    listing.paths = as_listed_paths(std::move(*paths), false);
    return listing;
  }
  if (!include_all)
    return sdk::refusal(fmt::format(
        "refusing to send {}: it is in no git work tree, so nothing says which of its files "
        "belong to the project; add a {} (gitignore syntax) there listing what to leave out, or "
        "pass --include-all to send every file under it",
        root.string(), kErrandIgnoreFile));
  auto paths = list_every_file(root);
  if (!paths) return paths.error();
  listing.source = SelectionSource::include_all;
  listing.paths = as_listed_paths(std::move(*paths), false);
  return listing;
}

// Git lists a path once per stage of a merge conflict; each is read once.
void sort_and_drop_repeats(std::vector<SelectionListedPath>& paths) {
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end(),
                          [](const SelectionListedPath& a, const SelectionListedPath& b) {
                            return a.path == b.path;
                          }),
              paths.end());
}

sdk::Result<void> read_listed_paths(const std::filesystem::path& root,
                                    const std::vector<SelectionListedPath>& paths,
                                    Selection& selection) {
  for (const auto& listed_path : paths) {
    std::string_view path = listed_path.path;
    // An untracked nested repository is listed as "name/".
    while (path.ends_with('/')) path.remove_suffix(1);
    auto read = read_path_on_disk(root, path);
    if (!read) return read.error();
    switch (read->kind) {
      case PathOnDisk::Kind::entry:
        selection.manifest.entries.push_back(std::move(read->entry));
        break;
      case PathOnDisk::Kind::directory:
        selection.left_out.push_back(
            {std::string(path),
             "a directory git lists as a single path (a submodule or a repository of its own): "
             "its files are not sent"});
        break;
      case PathOnDisk::Kind::missing:
        if (listed_path.tracked) break;  // deleted in the work tree: not part of it now
        return vanished_refusal(root / std::string(path));
    }
  }
  return {};
}

}  // namespace

std::string_view selection_source_name(SelectionSource source) {
  switch (source) {
    case SelectionSource::git_worktree: return "git worktree";
    case SelectionSource::errandignore: return ".errandignore";
    case SelectionSource::include_all: return "--include-all";
  }
  return "?";
}

sdk::Result<Selection> select_files(const SelectionOptions& options) {
  auto root = checked_selection_root(options);
  if (!root) return root.error();
  auto listing = list_selected_paths(*root, options.include_all);
  if (!listing) return listing.error();
  sort_and_drop_repeats(listing->paths);
  // Refused before reading a byte, rather than after hashing a million files.
  if (listing->paths.size() > kManifestMaxEntries)
    return sdk::refusal(fmt::format(
        "refusing to send {}: it holds {} files to send, over the {} a job may have; leave some "
        "out (.gitignore, .errandignore) or run errand in a smaller directory",
        root->string(), listing->paths.size(), kManifestMaxEntries));

  Selection selection;
  selection.root = *root;
  selection.source = listing->source;
  if (auto read = read_listed_paths(*root, listing->paths, selection); !read) return read.error();
  auto& entries = selection.manifest.entries;
  std::sort(entries.begin(), entries.end(),
            [](const ManifestEntry& a, const ManifestEntry& b) { return a.path < b.path; });
  if (auto checked = check_manifest(selection.manifest); !checked)
    return sdk::refusal(fmt::format("cannot send {}: {}", root->string(), checked.error().message));
  for (const auto& entry : entries)
    if (entry.kind != EntryKind::symlink)
      selection.content_files.emplace(entry.sha256, *root / entry.path);
  return selection;
}

}  // namespace errand::remote
