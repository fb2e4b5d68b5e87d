#pragma once

// Which files `errand -- CMD` sends from the caller's machine: the directory it was run in,
// turned into a Manifest. Inside a git work tree, the files git would commit (tracked ones and
// untracked ones it does not ignore, each read from disk as it is now, uncommitted changes and
// all; tracked files deleted from the work tree are left out). Elsewhere, what a .errandignore
// (gitignore syntax) in that directory lets through; with --include-all and no .errandignore,
// every file under it. Directories git lists as one path, submodules and repositories nested in
// the tree, are left out and reported: their files are not sent.

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/remote/snapshot/manifest.hpp"

namespace errand::remote {

inline constexpr std::string_view kErrandIgnoreFile = ".errandignore";

struct SelectionOptions {
  std::filesystem::path root;  // the directory to send
  // --include-all: sending the home directory (or one above it) is meant, and a directory in no
  // git work tree and with no .errandignore is sent whole. It changes no rule git or a
  // .errandignore makes where there is one.
  bool include_all = false;
  std::filesystem::path home;  // the caller's home directory; empty: no check against it
};

enum class SelectionSource { git_worktree, errandignore, include_all };

// As the caller prints it: "git worktree", ".errandignore" or "--include-all".
std::string_view selection_source_name(SelectionSource source);

struct LeftOutDirectory {
  std::string path;  // relative to the root, as in the manifest
  std::string reason;
};

struct Selection {
  std::filesystem::path root;  // canonical: symlinks resolved
  SelectionSource source = SelectionSource::git_worktree;
  // Sorted, checked (check_manifest); its file_count() and total_bytes() are what the caller
  // prints before admission.
  Manifest manifest;
  // For each content hash in the manifest, one absolute path of a file that had that content
  // when it was read: where to read a blob the runner lacks. The file may have changed since,
  // so whoever sends it checks the hash again as it reads.
  std::map<std::string, std::filesystem::path> content_files;
  std::vector<LeftOutDirectory> left_out;  // for the caller to warn about
};

// Refused, with a sentence saying what to do: root is not a directory, is "/", or is the home
// directory or above it without include_all; root is in no git work tree and has no
// .errandignore without include_all; or a selected path cannot be sent (a fifo, socket or
// device; a symlink with an absolute target or one leading outside root; a file that cannot be
// read, or that vanished while the tree was being read).
sdk::Result<Selection> select_files(const SelectionOptions& options);

}  // namespace errand::remote
