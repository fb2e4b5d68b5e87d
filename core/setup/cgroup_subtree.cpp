#include "core/setup/cgroup_subtree.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/cgroups/cgroups.hpp"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif

namespace errand::setup {

namespace {

// The controllers the per-session limits use.
constexpr const char* kControllers[] = {"memory", "pids", "cpu"};

bool is_filesystem(const std::string& path, long magic) {
  struct statfs fs {};
  return ::statfs(path.c_str(), &fs) == 0 && static_cast<long>(fs.f_type) == magic;
}

bool has_word(const std::string& text, const std::string& word) {
  std::istringstream words(text);
  for (std::string w; words >> w;)
    if (w == word) return true;
  return false;
}

// The controllers offered in dir/cgroup.controllers, as "+memory +pids +cpu".
std::string offered_controllers(const std::string& dir) {
  const auto offered = cgroups::read_control(dir + "/cgroup.controllers");
  std::string enable;
  for (const char* c : kControllers)
    if (has_word(offered, c)) enable += (enable.empty() ? "+" : " +") + std::string(c);
  return enable;
}

// What a service manager hands over with a delegated cgroup: the directory, and the files that
// move processes in and turn controllers on for its children.
sdk::Result<void> give(const std::string& dir, const CgroupOwner& owner) {
  if (::chown(dir.c_str(), owner.uid, owner.gid) != 0)
    return sdk::make_error("could not give " + dir + " to " + owner.name + ": " +
                           std::strerror(errno));
  for (const char* file : {"cgroup.procs", "tasks", "cgroup.threads", "cgroup.subtree_control"}) {
    const auto path = dir + "/" + file;
    if (::access(path.c_str(), F_OK) == 0 && ::chown(path.c_str(), owner.uid, owner.gid) != 0)
      return sdk::make_error("could not give " + path + " to " + owner.name + ": " +
                             std::strerror(errno));
  }
  return {};
}

sdk::Result<void> make_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) return {};
  return sdk::make_error("could not create the cgroup " + dir + ": " + std::strerror(errno));
}

// Children first: a cgroup can only be removed once it has none.
void remove_tree(const std::string& dir, std::string& stayed) {
  if (DIR* d = ::opendir(dir.c_str())) {
    std::vector<std::string> children;
    while (const dirent* e = ::readdir(d))
      if (e->d_type == DT_DIR && std::strcmp(e->d_name, ".") != 0 &&
          std::strcmp(e->d_name, "..") != 0)
        children.push_back(dir + "/" + e->d_name);
    ::closedir(d);
    for (const auto& child : children) remove_tree(child, stayed);
  }
  if (auto removed = cgroups::remove_dir(dir); !removed)
    stayed += (stayed.empty() ? "" : "; ") + removed.error().message;
}

}  // namespace

CgroupSubtree::CgroupSubtree(const CgroupSubtreePlan& plan) {
  if (is_filesystem(plan.mount, CGROUP2_SUPER_MAGIC)) {
    kind_ = Kind::v2;
    top_ = plan.mount + "/" + plan.name;
    dirs_ = {top_, top_ + "/" + plan.v2_process_child, top_ + "/sessions"};
    join_files_ = {top_ + "/" + plan.v2_process_child + "/cgroup.procs"};
    sessions_root_ = top_ + "/sessions";
    return;
  }
  for (const char* controller : kControllers) {
    std::string parent;
    if (plan.v1_below_own_cgroup) {
      parent = cgroups::own_v1_cgroup(controller);
    } else if (const auto top = plan.mount + "/" + controller;
               is_filesystem(top, CGROUP_SUPER_MAGIC)) {
      parent = top;
    }
    if (parent.empty()) continue;
    const auto dir = parent + "/" + plan.name;
    bool seen = false;
    for (const auto& d : dirs_) seen = seen || d == dir;
    if (seen) continue;
    dirs_.push_back(dir);
    join_files_.push_back(dir + "/cgroup.procs");
  }
  if (!dirs_.empty()) kind_ = Kind::v1;
}

std::string CgroupSubtree::describe() const {
  switch (kind_) {
    case Kind::v2: return "cgroup v2";
    case Kind::v1: return "cgroup v1";
    case Kind::none: break;
  }
  return "no cgroup hierarchy with the memory, pids and cpu controllers";
}

bool CgroupSubtree::in_place(const CgroupOwner& owner) const {
  if (kind_ == Kind::none) return false;
  for (const auto& dir : dirs_) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || st.st_uid != owner.uid || st.st_gid != owner.gid)
      return false;
  }
  return true;
}

sdk::Result<void> CgroupSubtree::create(const CgroupOwner& owner) const {
  if (kind_ == Kind::none)
    return sdk::make_error("this host has " + describe() + ", so no subtree can be delegated");
  if (kind_ == Kind::v2) {
    if (auto made = make_dir(top_); !made) return made;
    // A controller the parent does not pass down cannot be enabled below; the parent (the v2
    // root, where no service manager enables them) is asked to pass it first.
    const auto parent = top_.substr(0, top_.rfind('/'));
    const auto wanted = offered_controllers(parent);
    const auto enabled = cgroups::read_control(parent + "/cgroup.subtree_control");
    for (const char* c : kControllers) {
      if (!has_word(wanted, std::string("+") + c) || has_word(enabled, c)) continue;
      if (auto passed =
              cgroups::write_control(parent + "/cgroup.subtree_control", std::string("+") + c);
          !passed)
        return passed;
    }
    if (const auto enable = offered_controllers(top_); !enable.empty()) {
      if (auto on = cgroups::write_control(top_ + "/cgroup.subtree_control", enable); !on)
        return on;
    }
    for (std::size_t i = 1; i < dirs_.size(); ++i)
      if (auto made = make_dir(dirs_[i]); !made) return made;
  } else {
    for (const auto& dir : dirs_)
      if (auto made = make_dir(dir); !made) return made;
  }
  for (const auto& dir : dirs_)
    if (auto given = give(dir, owner); !given) return given;
  return {};
}

sdk::Result<void> CgroupSubtree::join(pid_t pid) const {
  if (kind_ == Kind::none) return sdk::make_error("no cgroup subtree to join: " + describe());
  const auto who = std::to_string(pid == 0 ? ::getpid() : pid);
  for (const auto& file : join_files_)
    if (auto joined = cgroups::write_control(file, who); !joined) return joined;
  return {};
}

sdk::Result<void> CgroupSubtree::remove() const {
  std::string stayed;
  // Parents come first in dirs_, and remove_tree takes each one's children with it.
  for (const auto& dir : dirs_) {
    if (kind_ == Kind::v2 && dir != top_) continue;
    remove_tree(dir, stayed);
  }
  if (!stayed.empty()) return sdk::make_error(std::move(stayed));
  return {};
}

}  // namespace errand::setup
