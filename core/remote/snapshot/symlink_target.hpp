#pragma once

// Where a symlink's target leads, told from the names alone, as the runner's tree will hold them:
// from the link's own directory, "." stays, ".." goes up and any other name goes down. Names say
// where a ".." lands only until the walk passes through another symlink, since from there it
// leaves from wherever that link leads (a link "up" to ".." makes "up/.." the tree's parent,
// which its names call the tree itself); the walk is told which names are symlinks for that.

#include <cstddef>
#include <string_view>

namespace errand::remote {

enum class SymlinkReach {
  inside,              // the tree's top directory or something under it
  absolute,            // starts with '/': a path on whichever machine reads the link
  above_root,          // a ".." climbs out of the tree
  up_through_symlink,  // a ".." comes after passing through another symlink
};

namespace symlink_target_detail {

// Calls visit(name) for each '/'-separated name of text, empty ones included, until it says stop.
template <class Visit>
void for_each_name(std::string_view text, Visit visit) {
  for (std::size_t start = 0; start <= text.size();) {
    const auto slash = text.find('/', start);
    const auto end = slash == std::string_view::npos ? text.size() : slash;
    if (!visit(text.substr(start, end - start))) return;
    start = end + 1;
  }
}

}  // namespace symlink_target_detail

// Tree tells the walk about the tree's names: `bool enter(std::string_view name)` goes down into
// name and says whether the path reached is a symlink, `void leave()` undoes the last enter. It
// is asked only about a target with a ".." after a name ("a/../b"), rare in practice: the usual
// target, some ".." and then names, climbs only through the link's own directories, which are
// real directories.
// link_path is the link's own relative, normalised path.
template <class Tree>
SymlinkReach walk_symlink_target(std::string_view link_path, std::string_view target, Tree& tree) {
  using symlink_target_detail::for_each_name;
  if (!target.empty() && target.front() == '/') return SymlinkReach::absolute;
  const auto directory_end = link_path.rfind('/');
  const std::string_view directory = directory_end == std::string_view::npos
                                         ? std::string_view()
                                         : link_path.substr(0, directory_end);

  // Only the target up to its last ".." can leave the tree; the names after it go down.
  std::size_t climbing_end = 0;
  bool name_before_up = false;
  bool seen_name = false;
  std::size_t ups = 0;
  std::size_t at = 0;
  for_each_name(target, [&](std::string_view name) {
    at += name.size() + 1;
    if (name == "..") {
      climbing_end = at - 1;
      name_before_up = name_before_up || seen_name;
      ++ups;
    } else if (!name.empty() && name != ".") {
      seen_name = true;
    }
    return true;
  });
  std::size_t depth = 0;
  if (!directory.empty()) {
    for_each_name(directory, [&](std::string_view) {
      ++depth;
      return true;
    });
  }
  if (!name_before_up) return ups > depth ? SymlinkReach::above_root : SymlinkReach::inside;

  if (!directory.empty()) {
    for_each_name(directory, [&](std::string_view name) {
      tree.enter(name);
      return true;
    });
  }
  SymlinkReach reach = SymlinkReach::inside;
  bool passed_symlink = false;
  for_each_name(target.substr(0, climbing_end), [&](std::string_view name) {
    if (name.empty() || name == ".") return true;
    if (name == "..") {
      if (passed_symlink)
        reach = SymlinkReach::up_through_symlink;
      else if (depth == 0)
        reach = SymlinkReach::above_root;
      if (reach != SymlinkReach::inside) return false;
      tree.leave();
      --depth;
      return true;
    }
    // Past a symlink the names no longer say where the walk is; only a later ".." matters.
    if (!passed_symlink) passed_symlink = tree.enter(name);
    ++depth;
    return true;
  });
  return reach;
}

// A tree about which nothing is known but the names: no name is a symlink.
struct NamesOnlyTree {
  bool enter(std::string_view) { return false; }
  void leave() {}
};

}  // namespace errand::remote
