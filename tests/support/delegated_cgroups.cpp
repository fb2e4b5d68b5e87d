#include "tests/support/delegated_cgroups.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "plugins/sandbox-bailey/common/cgroups.hpp"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

namespace errand::test {

namespace {

const char* const kPrefix = "errand-test-";
const char* const kCgroupMount = "/sys/fs/cgroup";

bool write_text(const std::string& path, const std::string& text, std::string& error) {
  std::ofstream out(path);
  if (out) out << text;
  if (out) out.flush();
  if (out) return true;
  error = "could not write \"" + text + "\" to " + path + ": " + std::strerror(errno);
  return false;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What a service manager hands over with a delegated cgroup: the directory, and the files that
// move processes in and turn controllers on for the children.
bool give(const std::string& dir, const TestAccount& account, std::string& error) {
  if (::chown(dir.c_str(), account.uid, account.gid) != 0) {
    error = "could not give " + dir + " to " + account.name + ": " + std::strerror(errno);
    return false;
  }
  for (const char* file : {"cgroup.procs", "tasks", "cgroup.threads", "cgroup.subtree_control"}) {
    const auto path = dir + "/" + file;
    if (::access(path.c_str(), F_OK) == 0 && ::chown(path.c_str(), account.uid, account.gid) != 0) {
      error = "could not give " + path + " to " + account.name + ": " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

bool make_dir(const std::string& dir, std::string& error) {
  if (::mkdir(dir.c_str(), 0755) == 0) return true;
  error = "could not create the cgroup " + dir + ": " + std::strerror(errno);
  return false;
}

// Depth first: a cgroup can only be removed once it has no children.
void remove_tree(const std::string& dir) {
  if (DIR* d = ::opendir(dir.c_str())) {
    std::vector<std::string> children;
    while (const dirent* e = ::readdir(d))
      if (e->d_type == DT_DIR && std::strcmp(e->d_name, ".") != 0 &&
          std::strcmp(e->d_name, "..") != 0)
        children.push_back(dir + "/" + e->d_name);
    ::closedir(d);
    for (const auto& child : children) remove_tree(child);
  }
  if (auto removed = bailey::cgroups::remove_dir(dir); !removed)
    std::fprintf(stderr, "test account: %s\n", removed.error().message.c_str());
}

// A test process killed before it could clean up leaves its subtree; the next one removes it.
void sweep(const std::string& parent) {
  DIR* d = ::opendir(parent.c_str());
  if (d == nullptr) return;
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(kPrefix, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + std::strlen(kPrefix), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      stale.push_back(parent + "/" + name);
  }
  ::closedir(d);
  for (const auto& dir : stale) remove_tree(dir);
}

bool unified_only() {
  struct statfs fs {};
  return ::statfs(kCgroupMount, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
}

}  // namespace

bool DelegatedCgroups::create(const TestAccount& account, std::string& error) {
  const std::string name = kPrefix + std::to_string(::getpid());
  if (unified_only()) {
    const std::string root = kCgroupMount;
    sweep(root);
    const auto dir = root + "/" + name;
    if (!make_dir(dir, error)) return false;
    dirs_.push_back(dir);
    std::string enable;
    std::istringstream offered(read_text(dir + "/cgroup.controllers"));
    for (std::string c; offered >> c;)
      if (c == "memory" || c == "pids" || c == "cpu") enable += (enable.empty() ? "+" : " +") + c;
    if (!enable.empty() && !write_text(dir + "/cgroup.subtree_control", enable, error))
      return false;
    for (const char* child : {"/tests", "/sessions"}) {
      if (!make_dir(dir + child, error)) return false;
      dirs_.push_back(dir + child);
    }
    for (const auto& d : dirs_)
      if (!give(d, account, error)) return false;
    join_files_.push_back(dir + "/tests/cgroup.procs");
    sessions_root_ = dir + "/sessions";
    return true;
  }
  for (const char* controller : {"memory", "pids", "cpu"}) {
    const auto parent = bailey::cgroups::own_v1_cgroup(controller);
    if (parent.empty()) continue;
    const auto dir = parent + "/" + name;
    bool seen = false;
    for (const auto& d : dirs_) seen = seen || d == dir;
    if (seen) continue;
    sweep(parent);
    if (!make_dir(dir, error)) return false;
    dirs_.push_back(dir);
    if (!give(dir, account, error)) return false;
    join_files_.push_back(dir + "/tasks");
  }
  return true;
}

bool DelegatedCgroups::join(std::string& error) const {
  for (const auto& file : join_files_)
    if (!write_text(file, "0", error)) return false;
  // Only the delegated subtree is the account's: a BAILEY_CGROUP_ROOT the caller set is root's.
  if (!sessions_root_.empty())
    ::setenv("BAILEY_CGROUP_ROOT", sessions_root_.c_str(), 1);
  else if (!join_files_.empty())
    ::unsetenv("BAILEY_CGROUP_ROOT");
  return true;
}

void DelegatedCgroups::remove() const {
  for (auto d = dirs_.rbegin(); d != dirs_.rend(); ++d) remove_tree(*d);
}

std::vector<std::string> delegated_environment() {
  const char* root = std::getenv("BAILEY_CGROUP_ROOT");
  if (root == nullptr) return {};
  return {std::string("BAILEY_CGROUP_ROOT=") + root};
}

}  // namespace errand::test
