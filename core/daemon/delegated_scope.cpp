#include "core/daemon/delegated_scope.hpp"

#include "common/cgroups/cgroups.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string_view>
#include <system_error>

namespace errand::daemon {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kProcessChild = "supervisor";
constexpr std::string_view kSessionsChild = "sessions";
// The controllers a session's limits use, in the order they are enabled.
constexpr const char* kControllers[] = {"memory", "pids", "cpu"};

bool listed(const std::string& words, std::string_view word) {
  std::istringstream in(words);
  for (std::string each; in >> each;)
    if (each == word) return true;
  return false;
}

}  // namespace

std::optional<fs::path> delegated_scope_of(const std::string& proc_self_cgroup,
                                           const fs::path& mount, uid_t uid) {
  std::istringstream lines(proc_self_cgroup);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("0::", 0) != 0) continue;
    const std::string own = line.substr(3);
    if (own.empty() || own == "/" || fs::path(own).filename().string() == kProcessChild)
      return std::nullopt;
    const fs::path dir = mount / fs::path(own).relative_path();
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != uid)
      return std::nullopt;
    if (::access((dir / "cgroup.procs").c_str(), W_OK) != 0 ||
        ::access((dir / "cgroup.subtree_control").c_str(), W_OK) != 0)
      return std::nullopt;
    return dir;
  }
  return std::nullopt;
}

sdk::Result<fs::path> adopt_delegated_scope(const fs::path& scope, pid_t pid) {
  const auto process_child = scope / kProcessChild;
  const auto sessions = scope / kSessionsChild;
  for (const auto& dir : {process_child, sessions}) {
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
      return sdk::make_error("could not create " + dir.string() + ": " + std::strerror(errno));
  }
  // First out of the scope itself: the kernel enables controllers for the children only of a
  // cgroup with no process in it.
  if (auto moved = cgroups::write_control(process_child / "cgroup.procs", std::to_string(pid));
      !moved)
    return moved.error();
  const auto offered = cgroups::read_control(scope / "cgroup.controllers");
  std::string enable;
  for (const char* controller : kControllers)
    if (listed(offered, controller))
      enable += (enable.empty() ? "+" : " +") + std::string(controller);
  if (enable.empty())
    return sdk::make_error(scope.string() +
                           " is given none of the memory, pids and cpu controllers");
  if (auto enabled = cgroups::write_control(scope / "cgroup.subtree_control", enable); !enabled)
    return enabled.error();
  return sessions;
}

std::string adopt_own_delegated_scope() {
  const char* root = std::getenv("BAILEY_CGROUP_ROOT");
  if (root != nullptr && *root != '\0') return {};
  const fs::path mount = "/sys/fs/cgroup";
  if (!cgroups::on_cgroup2(mount)) return {};
  const auto scope =
      delegated_scope_of(cgroups::read_control("/proc/self/cgroup"), mount, ::geteuid());
  if (!scope) return {};
  const auto sessions = adopt_delegated_scope(*scope, ::getpid());
  if (!sessions)
    return "errand runs in the cgroup " + scope->string() +
           ", which is its account's, but could not divide it for the sessions' limits: " +
           sessions.error().message;
  return "errand runs in the cgroup " + scope->string() + ", which is its account's: it moved " +
         "itself into " + (*scope / kProcessChild).string() +
         " and makes the sessions' cgroups in " + sessions->string();
}

}  // namespace errand::daemon
