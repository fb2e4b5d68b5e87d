#include "common/cgroups/cgroups.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>
#include <utility>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

namespace errand::cgroups {

namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::vector<std::string> split_words(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string word;
  std::string flat = text;
  for (auto& c : flat)
    if (c == '\n') c = sep;
  std::istringstream in(flat);
  while (std::getline(in, word, sep))
    if (!word.empty()) out.push_back(word);
  return out;
}

// The controllers a session's limits use, and the control file a child cgroup of each version
// must show before the limit can be written.
struct Controller {
  const char* name;
  const char* v2_control;
  const char* v1_control;
  std::string Layout::*slot;
};
const Controller kControllers[] = {
    {"memory", "memory.max", "memory.limit_in_bytes", &Layout::memory},
    {"pids", "pids.max", "pids.max", &Layout::pids},
    {"cpu", "cpu.max", "cpu.cfs_quota_us", &Layout::cpu}};

// Proves a parent can host session cgroups: creates a child, checks the control file the
// limits need appeared, removes it.
sdk::Result<void> can_host(const std::string& parent, const std::string& control_file) {
  const auto probe = parent + "/errand-probe-" + std::to_string(::getpid());
  ::rmdir(probe.c_str());
  if (::mkdir(probe.c_str(), 0755) != 0)
    return sdk::make_error("cannot create a child cgroup in " + parent + ": " +
                           std::strerror(errno));
  const bool offered = exists(probe + "/" + control_file);
  ::rmdir(probe.c_str());
  if (!offered)
    return sdk::make_error(parent + " does not offer " + control_file + " to its children",
                           sdk::Error::Kind::unavailable);
  return {};
}

Layout detect_v2(const std::string& root) {
  Layout layout;
  struct statfs fs {};
  if (::statfs(root.c_str(), &fs) != 0) {
    layout.problems.push_back("BAILEY_CGROUP_ROOT=" + root +
                              " cannot be read: " + std::strerror(errno));
    return layout;
  }
  if (fs.f_type != CGROUP2_SUPER_MAGIC) {
    layout.problems.push_back("BAILEY_CGROUP_ROOT=" + root + " is not on a cgroup v2 filesystem");
    return layout;
  }
  const auto available = split_words(read_control(root + "/cgroup.controllers"), ' ');
  const std::set<std::string> offered(available.begin(), available.end());
  std::string enable;
  for (const auto& c : kControllers) {
    const std::string name = c.name;
    if (offered.count(name) == 0) {
      layout.problems.push_back("the " + name + " controller is not delegated to " + root);
      continue;
    }
    enable += (enable.empty() ? "+" : " +") + name;
  }
  if (!enable.empty()) {
    if (auto enabled = write_control(root + "/cgroup.subtree_control", enable); !enabled)
      layout.problems.push_back(enabled.error().message +
                                " (a delegated root must hold no processes itself)");
  }
  for (const auto& c : kControllers) {
    if (offered.count(c.name) == 0) continue;
    if (auto hosted = can_host(root, c.v2_control))
      layout.*c.slot = root;
    else
      layout.problems.push_back(hosted.error().message);
  }
  layout.kind =
      (layout.memory.empty() && layout.pids.empty() && layout.cpu.empty()) ? Kind::none : Kind::v2;
  return layout;
}

Layout detect_v1() {
  Layout layout;
  for (const auto& c : kControllers) {
    const auto parent = own_v1_cgroup(c.name);
    if (parent.empty()) {
      layout.problems.push_back(std::string("no cgroup v1 hierarchy carries the ") + c.name +
                                " controller and BAILEY_CGROUP_ROOT names no delegated v2 root");
      continue;
    }
    if (auto hosted = can_host(parent, c.v1_control))
      layout.*c.slot = parent;
    else
      layout.problems.push_back(hosted.error().message);
  }
  layout.kind =
      (layout.memory.empty() && layout.pids.empty() && layout.cpu.empty()) ? Kind::none : Kind::v1;
  return layout;
}

std::uint64_t counter(const std::string& file, const std::string& key) {
  std::ifstream in(file);
  for (std::string name; in >> name;) {
    std::uint64_t value = 0;
    if (!(in >> value)) return 0;
    if (name == key) return value;
  }
  return 0;
}

}  // namespace

std::string read_control(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

sdk::Result<void> write_control(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (out) out << text;
  if (out) out.flush();
  if (!out)
    return sdk::make_error("could not write \"" + text + "\" to " + path + ": " +
                           std::strerror(errno));
  return {};
}

bool on_cgroup2(const std::string& path) {
  struct statfs fs {};
  return ::statfs(path.c_str(), &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
}

std::string own_v1_cgroup(const std::string& controller) {
  std::string mountpoint, mount_root;
  std::ifstream mounts("/proc/self/mountinfo");
  for (std::string line; std::getline(mounts, line);) {
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    const auto after = split_words(line.substr(dash + 3), ' ');
    if (after.size() < 3 || after[0] != "cgroup") continue;
    const auto options = split_words(after[2], ',');
    bool has = false;
    for (const auto& o : options) has = has || o == controller;
    if (!has) continue;
    const auto fields = split_words(line.substr(0, dash), ' ');
    if (fields.size() < 5) continue;
    mount_root = fields[3];
    mountpoint = fields[4];
    break;
  }
  if (mountpoint.empty()) return {};
  std::ifstream self("/proc/self/cgroup");
  for (std::string line; std::getline(self, line);) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const auto names = split_words(line.substr(first + 1, second - first - 1), ',');
    bool has = false;
    for (const auto& n : names) has = has || n == controller;
    if (!has) continue;
    auto path = line.substr(second + 1);
    if (mount_root != "/" && path.compare(0, mount_root.size(), mount_root) == 0)
      path = path.substr(mount_root.size());
    if (path == "/") path.clear();
    return mountpoint + path;
  }
  return {};
}

std::string v2_sessions_beside(const std::string& proc_self_cgroup, const std::string& mount) {
  std::istringstream lines(proc_self_cgroup);
  for (std::string line; std::getline(lines, line);) {
    // The unified hierarchy's line is "0::<path>".
    if (line.rfind("0::", 0) != 0) continue;
    const std::string own = line.substr(3);
    constexpr std::string_view leaf = "/supervisor";
    if (own.size() <= leaf.size() || own.compare(own.size() - leaf.size(), leaf.size(), leaf) != 0)
      return {};
    return mount + own.substr(0, own.size() - leaf.size()) + "/sessions";
  }
  return {};
}

Layout detect(const std::string& root_override) {
  if (!root_override.empty()) return detect_v2(root_override);
  const std::string mount = "/sys/fs/cgroup";
  if (on_cgroup2(mount)) {
    const auto beside = v2_sessions_beside(read_control("/proc/self/cgroup"), mount);
    if (!beside.empty() && exists(beside)) return detect_v2(beside);
  }
  return detect_v1();
}

std::string daemon_prefix(const std::string& state_dir) {
  std::uint32_t hash = 2166136261u;
  for (const unsigned char c : state_dir) hash = (hash ^ c) * 16777619u;
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", hash);
  return std::string("errand-") + hex + "-";
}

sdk::Result<Session> create(const Layout& layout, const std::string& name, const Limits& limits) {
  Session out;
  out.kind = layout.kind;
  auto make = [&](const std::string& parent, std::string& slot) -> sdk::Result<void> {
    if (parent.empty()) return {};
    slot = parent + "/" + name;
    for (const auto& d : out.dirs)
      if (d == slot) return {};
    if (::mkdir(slot.c_str(), 0755) != 0 && errno != EEXIST)
      return sdk::make_error("could not create the cgroup " + slot + ": " + std::strerror(errno));
    out.dirs.push_back(slot);
    // A single-threaded process moving itself through v1's tasks file skips the global
    // threadgroup lock, whose RCU grace period costs milliseconds on every launch.
    out.join_files.push_back(slot + (layout.kind == Kind::v1 ? "/tasks" : "/cgroup.procs"));
    return {};
  };
  auto limited = [&]() -> sdk::Result<void> {
    for (const auto& [parent, slot] :
         {std::pair{&layout.memory, &out.memory_dir}, std::pair{&layout.pids, &out.pids_dir},
          std::pair{&layout.cpu, &out.cpu_dir}})
      if (auto made = make(*parent, *slot); !made) return made;
    const bool v2 = layout.kind == Kind::v2;
    if (!out.memory_dir.empty() && limits.memory_bytes > 0) {
      const auto bytes = std::to_string(limits.memory_bytes);
      // Swap would let a session hold more than its limit; zero it where the kernel offers it.
      const auto swap = out.memory_dir + (v2 ? "/memory.swap.max" : "/memory.memsw.limit_in_bytes");
      const auto limit = out.memory_dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes");
      if (auto written = write_control(limit, bytes); !written) return written;
      if (exists(swap))
        if (auto written = write_control(swap, v2 ? "0" : bytes); !written) return written;
    }
    if (!out.pids_dir.empty() && limits.pids > 0)
      if (auto written = write_control(out.pids_dir + "/pids.max", std::to_string(limits.pids));
          !written)
        return written;
    if (!out.cpu_dir.empty() && limits.cpu_millis > 0) {
      const std::uint64_t period = 100000;
      const auto quota = std::to_string(limits.cpu_millis * period / 1000);
      if (v2) return write_control(out.cpu_dir + "/cpu.max", quota + " " + std::to_string(period));
      if (auto written = write_control(out.cpu_dir + "/cpu.cfs_period_us", std::to_string(period));
          !written)
        return written;
      return write_control(out.cpu_dir + "/cpu.cfs_quota_us", quota);
    }
    return {};
  }();
  if (!limited) {
    // What was made is undone; the reason it could not be is the lesser news.
    (void)remove(out);
    return limited.error();
  }
  return out;
}

std::uint64_t oom_kills(const Session& s) {
  if (s.memory_dir.empty()) return 0;
  return s.kind == Kind::v2 ? counter(s.memory_dir + "/memory.events", "oom_kill")
                            : counter(s.memory_dir + "/memory.oom_control", "oom_kill");
}

std::uint64_t refused_forks(const Session& s) {
  if (s.pids_dir.empty()) return 0;
  return counter(s.pids_dir + "/pids.events", "max");
}

std::size_t kill_all_in(const std::string& dir) {
  std::size_t signalled = 0;
  std::ifstream procs(dir + "/cgroup.procs");
  for (pid_t pid = 0; procs >> pid;)
    if (pid > 0 && ::kill(pid, SIGKILL) == 0) ++signalled;
  return signalled;
}

std::size_t kill_all(const Session& s) {
  std::size_t signalled = 0;
  for (const auto& d : s.dirs) signalled += kill_all_in(d);
  return signalled;
}

sdk::Result<void> remove_dir(const std::string& dir) {
  // A cgroup goes once its last process is reaped; a killed process can take a moment.
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) return {};
    if (errno != EBUSY) break;
    kill_all_in(dir);
    std::this_thread::sleep_for(std::chrono::milliseconds(attempt < 10 ? 2 : 20));
  }
  return sdk::make_error("the cgroup " + dir + " could not be removed: " + std::strerror(errno));
}

sdk::Result<void> remove(const Session& s) {
  std::string stayed;
  for (const auto& d : s.dirs) {
    if (auto removed = remove_dir(d); !removed)
      stayed += (stayed.empty() ? "" : "; ") + removed.error().message;
  }
  if (!stayed.empty()) return sdk::make_error(std::move(stayed));
  return {};
}

std::vector<std::string> leftovers(const Layout& layout, const std::string& prefix) {
  std::set<std::string> parents;
  for (const auto* p : {&layout.memory, &layout.pids, &layout.cpu})
    if (!p->empty()) parents.insert(*p);
  std::vector<std::string> out;
  for (const auto& parent : parents) {
    DIR* dir = ::opendir(parent.c_str());
    if (dir == nullptr) continue;
    while (const dirent* e = ::readdir(dir)) {
      const std::string name = e->d_name;
      if (e->d_type == DT_DIR && name.rfind(prefix, 0) == 0) out.push_back(parent + "/" + name);
    }
    ::closedir(dir);
  }
  return out;
}

}  // namespace errand::cgroups
