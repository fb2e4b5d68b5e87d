#include "core/remote/snapshot/manifest_rules.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/utf8_text.hpp"
#include "core/remote/quoted_text.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "core/remote/snapshot/symlink_target.hpp"

namespace errand::remote {
namespace {

sdk::Error manifest_entry_refusal(std::size_t index, std::string_view path, std::string_view rule) {
  return sdk::refusal(fmt::format("{}: {}", manifest_entry_label(index, path), rule));
}

std::string manifest_component_problem(std::string_view component) {
  if (component.empty()) return "the path has an empty component (\"//\")";
  if (component == ".") return "the path has a \".\" component";
  if (component == "..") return "the path has a \"..\" component";
  if (component.size() > kManifestMaxComponentBytes)
    return fmt::format("the path component {} is {} bytes, over the {} allowed",
                       quote_text(component), component.size(), kManifestMaxComponentBytes);
  return {};
}

std::string manifest_target_problem(std::string_view target) {
  if (target.empty()) return "the symlink's target is empty";
  if (target.find('\0') != std::string_view::npos) return "the symlink's target holds a NUL byte";
  if (target.size() > kManifestMaxPathBytes)
    return fmt::format("the symlink's target is {} bytes, over the {} allowed", target.size(),
                       kManifestMaxPathBytes);
  if (const auto bad = common::first_invalid_utf8(target))
    return fmt::format("the symlink's target is not UTF-8 (at byte {})", *bad);
  if (target.front() == '/')
    return fmt::format(
        "the symlink's target {} is absolute; a target is relative to the link's directory",
        quote_text(target));
  return {};
}

std::string manifest_kind_problem(const ManifestEntry& entry) {
  if (entry.kind == EntryKind::symlink) {
    if (entry.size != 0)
      return fmt::format("a symlink has size {}; a symlink's size is 0", entry.size);
    if (!entry.sha256.empty()) return "a symlink carries a sha256; only files do";
    return manifest_target_problem(entry.target);
  }
  if (!is_sha256_hex(entry.sha256))
    return fmt::format("the file's sha256 {} is not 64 lowercase hexadecimal digits",
                       quote_text(entry.sha256));
  if (!entry.target.empty())
    return fmt::format("a file has a symlink target ({}); only symlinks do",
                       quote_text(entry.target));
  return {};
}

// The entries under one directory at a time, narrowed as a symlink's target goes down a name and
// widened again as it comes back: each step compares only the name, never the whole path, so
// checking every target costs about what reading the manifest did.
class SortedEntriesTree {
 public:
  explicit SortedEntriesTree(const std::vector<ManifestEntry>& entries) : entries_(entries) {
    levels_.push_back({0, entries.size(), 0});
  }

  bool enter(std::string_view name) {
    const Level here = levels_.back();
    const auto first = entries_.begin() + static_cast<std::ptrdiff_t>(here.begin);
    const auto last = entries_.begin() + static_cast<std::ptrdiff_t>(here.end);
    // Every entry in [first, last) starts with here's directory and a '/' (here.prefix bytes).
    const auto before = [&](const ManifestEntry& entry, std::string_view key) {
      return std::string_view(entry.path).substr(here.prefix) < key;
    };
    const auto exact = std::lower_bound(first, last, name, before);
    const bool symlink = exact != last &&
                         std::string_view(exact->path).substr(here.prefix) == name &&
                         exact->kind == EntryKind::symlink;
    std::string bound(name);
    bound += '/';
    const auto below_first = std::lower_bound(exact, last, bound, before);
    bound.back() = '/' + 1;  // the first string after every one that starts with name + '/'
    const auto below_last = std::lower_bound(below_first, last, bound, before);
    levels_.push_back({static_cast<std::size_t>(below_first - entries_.begin()),
                       static_cast<std::size_t>(below_last - entries_.begin()),
                       here.prefix + name.size() + 1});
    return symlink;
  }

  void leave() { levels_.pop_back(); }

 private:
  struct Level {
    std::size_t begin;
    std::size_t end;
    std::size_t prefix;
  };
  const std::vector<ManifestEntry>& entries_;
  std::vector<Level> levels_;
};

// Sorted paths put a directory's entries right after any entry named like the directory (every
// path between "a" and "a/b" starts with "a"), so a stack of the entries that prefix the current
// path finds a file used as a directory without searching.
sdk::Result<void> check_no_file_is_a_directory(const std::vector<ManifestEntry>& entries) {
  std::vector<std::size_t> prefixes;
  for (std::size_t index = 0; index < entries.size(); ++index) {
    const std::string_view path = entries[index].path;
    while (!prefixes.empty() && !path.starts_with(entries[prefixes.back()].path))
      prefixes.pop_back();
    for (const std::size_t prefix : prefixes) {
      const std::string_view directory = entries[prefix].path;
      if (path[directory.size()] == '/')
        return manifest_entry_refusal(
            index, path,
            fmt::format("its directory {} is also entry {}; a path cannot be both a {} and a "
                        "directory",
                        quote_text(directory), prefix,
                        entries[prefix].kind == EntryKind::symlink ? "symlink" : "file"));
    }
    prefixes.push_back(index);
  }
  return {};
}

sdk::Result<void> check_symlinks_lead_inside(const std::vector<ManifestEntry>& entries) {
  for (std::size_t index = 0; index < entries.size(); ++index) {
    const ManifestEntry& entry = entries[index];
    if (entry.kind != EntryKind::symlink) continue;
    SortedEntriesTree tree(entries);
    switch (walk_symlink_target(entry.path, entry.target, tree)) {
      case SymlinkReach::inside: break;
      case SymlinkReach::absolute:
        return manifest_entry_refusal(index, entry.path, manifest_target_problem(entry.target));
      case SymlinkReach::above_root:
        return manifest_entry_refusal(index, entry.path,
                                      fmt::format("the symlink's target {} leads outside the tree",
                                                  quote_text(entry.target)));
      case SymlinkReach::up_through_symlink:
        return manifest_entry_refusal(
            index, entry.path,
            fmt::format("the symlink's target {} goes up (\"..\") after passing through another "
                        "symlink, so its names do not say where it leads",
                        quote_text(entry.target)));
    }
  }
  return {};
}

}  // namespace

std::string manifest_entry_label(std::size_t index, std::string_view path) {
  return fmt::format("manifest entry {} ({})", index, quote_text(path));
}

std::string manifest_path_problem(std::string_view path) {
  if (path.empty()) return "the path is empty";
  if (path.size() > kManifestMaxPathBytes)
    return fmt::format("the path is {} bytes, over the {} allowed", path.size(),
                       kManifestMaxPathBytes);
  if (path.find('\0') != std::string_view::npos) return "the path holds a NUL byte";
  if (const auto bad = common::first_invalid_utf8(path))
    return fmt::format("the path is not UTF-8 (at byte {}); the manifest is JSON text", *bad);
  if (path.front() == '/') return "the path starts with '/'; paths are relative to the tree";
  if (path.back() == '/') return "the path ends with '/'; directories are not entries";
  for (std::size_t start = 0; start <= path.size();) {
    const auto slash = path.find('/', start);
    const auto end = slash == std::string_view::npos ? path.size() : slash;
    if (auto problem = manifest_component_problem(path.substr(start, end - start));
        !problem.empty())
      return problem;
    start = end + 1;
  }
  return {};
}

sdk::Result<void> check_manifest_entry(std::size_t index, const ManifestEntry& entry,
                                       const ManifestEntry* previous) {
  if (auto problem = manifest_path_problem(entry.path); !problem.empty())
    return manifest_entry_refusal(index, entry.path, problem);
  if (auto problem = manifest_kind_problem(entry); !problem.empty())
    return manifest_entry_refusal(index, entry.path, problem);
  if (previous != nullptr && !(previous->path < entry.path)) {
    const auto rule =
        previous->path == entry.path
            ? fmt::format("the path is entry {}'s too; each path is listed once", index - 1)
            : fmt::format(
                  "the path sorts before entry {}'s ({}); entries are sorted "
                  "by path, bytewise",
                  index - 1, quote_text(previous->path));
    return manifest_entry_refusal(index, entry.path, rule);
  }
  return {};
}

sdk::Result<void> check_manifest_tree(const std::vector<ManifestEntry>& entries) {
  if (auto checked = check_no_file_is_a_directory(entries); !checked) return checked;
  return check_symlinks_lead_inside(entries);
}

sdk::Result<void> check_manifest_size(std::size_t entries) {
  if (entries <= kManifestMaxEntries) return {};
  return sdk::refusal(fmt::format("the manifest has {} entries, over the {} allowed", entries,
                                  kManifestMaxEntries));
}

}  // namespace errand::remote
