#include "plugins/sandbox-bailey/common/host_features.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "common/landlock/landlock_abi.hpp"
#include "common/seccomp/seccomp_filter.hpp"

namespace errand::bailey {

namespace {

bool write_text_file(const char* path, const char* text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const auto len = std::strlen(text);
  const bool ok = ::write(fd, text, len) == static_cast<ssize_t>(len);
  ::close(fd);
  return ok;
}

// Runs one check in a forked child and turns its exit code into a sentence: 0 is success,
// anything else indexes the steps the child gave up at.
sdk::Result<void> in_child(int (*check)(), const std::vector<std::string>& steps) {
  const pid_t pid = ::fork();
  if (pid < 0) return sdk::make_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) ::_exit(check());
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  if (!WIFEXITED(status)) {
    return sdk::make_error("the test process was killed by signal " +
                           std::to_string(WTERMSIG(status)));
  }
  const int code = WEXITSTATUS(status);
  const int step = code / 50;
  const int err = code % 50;
  std::string detail =
      step >= 1 && step <= static_cast<int>(steps.size()) ? steps[step - 1] : std::string("a step");
  detail +=
      std::string(" failed: ") + (err == 49 ? "it did not behave as expected" : std::strerror(err));
  return sdk::make_error(std::move(detail));
}

// The doctor's report keeps each feature as a flag and, when it is off, the reason.
void note(const sdk::Result<void>& probed, bool& works, std::string& detail) {
  works = probed.has_value();
  if (!probed) detail = probed.error().message;
}

// Exit codes: 50 * the step that failed + its errno (capped at 49).
int step_failed(int step) {
  return step * 50 + (errno > 0 && errno < 50 ? errno : 49);
}

int try_user_namespace() {
  char map[64];
  const auto uid = ::getuid();
  const auto gid = ::getgid();
  if (::unshare(CLONE_NEWUSER) != 0) return step_failed(1);
  if (!write_text_file("/proc/self/setgroups", "deny")) return step_failed(2);
  std::snprintf(map, sizeof map, "0 %u 1", static_cast<unsigned>(uid));
  if (!write_text_file("/proc/self/uid_map", map)) return step_failed(2);
  std::snprintf(map, sizeof map, "0 %u 1", static_cast<unsigned>(gid));
  if (!write_text_file("/proc/self/gid_map", map)) return step_failed(2);
  if (::unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET) != 0)
    return step_failed(3);
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return step_failed(4);
  if (::mount("tmpfs", "/tmp", "tmpfs", 0, "size=64k") != 0) return step_failed(4);
  return 0;
}

int try_recursive_mount_flags() {
  if (try_user_namespace() != 0) return step_failed(1);
  mount_attr attr{};
  attr.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
  if (::mount_setattr(AT_FDCWD, "/tmp", AT_RECURSIVE, &attr, sizeof attr) != 0)
    return step_failed(2);
  return 0;
}

int try_seccomp() {
  // Compiled and loaded as every session's is: once in the plugin, loaded by the launcher.
  const auto filter = seccomp::CompiledFilter::compile();
  if (!filter) return step_failed(1);
  if (const int rc = seccomp::load_compiled_filter(*filter); rc != 0) {
    errno = -rc;
    return step_failed(2);
  }
  // A personality the filter refuses must now fail with EPERM, and a number past the highest
  // known one with ENOSYS.
  errno = 0;
  if (::personality(0x0400000) != -1 || errno != EPERM) return step_failed(3);
  errno = 0;
  if (::syscall(filter->highest_known + 1, 0, 0, 0, 0, 0, 0) != -1 || errno != ENOSYS)
    return step_failed(3);
  return 0;
}

const std::vector<std::string> kHideNames = {
    "landlock", "landlock-net",  "landlock-scope", "userns",     "seccomp", "mount-setattr",
    "cgroup",   "cgroup-memory", "cgroup-pids",    "cgroup-cpu", "pasta"};

}  // namespace

sdk::Result<std::string> find_pasta() {
  std::string found;
  for (const char* p : {"/usr/bin/pasta", "/usr/local/bin/pasta", "/usr/sbin/pasta", "/bin/pasta"})
    if (found.empty() && ::access(p, X_OK) == 0) found = p;
  if (found.empty()) {
    return sdk::make_error("pasta is not installed; install the passt package",
                           sdk::Error::Kind::not_found);
  }
  // pasta opens the tap device for the namespace it serves as the daemon's own user; where
  // the device is root's alone (Debian's udev makes it 0666), every launch would fail.
  const int tun = ::open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (tun < 0) {
    return sdk::make_error("pasta cannot open /dev/net/tun as uid " + std::to_string(::getuid()) +
                           " (" + std::strerror(errno) +
                           "); the device must be readable and writable by the daemon's account "
                           "(mode 0666, as Debian's udev sets it)");
  }
  ::close(tun);
  return found;
}

HostFeatures detect_host_features(const std::string& cgroup_root) {
  HostFeatures f;
  const auto abi = landlock::query_abi();
  f.landlock_abi = abi.abi;
  if (abi.abi == 0)
    f.landlock_detail =
        abi.error == ENOSYS ? "the kernel was built without Landlock"
        : abi.error == EOPNOTSUPP
            ? "Landlock is built in but not enabled (add landlock to lsm= on the "
              "kernel command line)"
            : std::string("the Landlock ABI query failed: ") + std::strerror(abi.error);
  note(in_child(&try_user_namespace,
                {"creating a user namespace", "mapping the daemon's uid and gid into it",
                 "creating mount, PID, UTS, IPC and network namespaces inside it",
                 "mounting a tmpfs inside it"}),
       f.userns, f.userns_detail);
  note(in_child(&try_seccomp, {"building the syscall filter", "loading the syscall filter",
                               "checking that a filtered call is refused"}),
       f.seccomp, f.seccomp_detail);
  note(in_child(&try_recursive_mount_flags,
                {"setting up a user and mount namespace", "mount_setattr with AT_RECURSIVE"}),
       f.recursive_mount_flags, f.recursive_mount_flags_detail);
  f.cgroup = cgroups::detect(cgroup_root);
  if (auto pasta = find_pasta())
    f.pasta_path = std::move(*pasta);
  else
    f.pasta_detail = std::move(pasta.error().message);
  return f;
}

std::string serialize(const HostFeatures& f) {
  std::ostringstream out;
  auto line = [&](const char* key, const std::string& value) {
    std::string flat = value;
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    out << key << '=' << flat << '\n';
  };
  line("landlock_abi", std::to_string(f.landlock_abi));
  line("landlock_detail", f.landlock_detail);
  line("userns", f.userns ? "1" : "0");
  line("userns_detail", f.userns_detail);
  line("seccomp", f.seccomp ? "1" : "0");
  line("seccomp_detail", f.seccomp_detail);
  line("mount_setattr", f.recursive_mount_flags ? "1" : "0");
  line("mount_setattr_detail", f.recursive_mount_flags_detail);
  line("cgroup_kind", f.cgroup.kind == cgroups::Kind::v2   ? "v2"
                      : f.cgroup.kind == cgroups::Kind::v1 ? "v1"
                                                           : "none");
  line("cgroup_memory", f.cgroup.memory);
  line("cgroup_pids", f.cgroup.pids);
  line("cgroup_cpu", f.cgroup.cpu);
  for (const auto& p : f.cgroup.problems) line("cgroup_problem", p);
  line("pasta", f.pasta_path);
  line("pasta_detail", f.pasta_detail);
  return out.str();
}

sdk::Result<HostFeatures> parse_features(const std::string& text) {
  HostFeatures f;
  std::istringstream in(text);
  int seen = 0;
  for (std::string raw; std::getline(in, raw);) {
    if (raw.empty()) continue;
    const auto eq = raw.find('=');
    if (eq == std::string::npos) return sdk::make_error("a doctor line without '=': " + raw);
    const auto key = raw.substr(0, eq);
    const auto value = raw.substr(eq + 1);
    ++seen;
    if (key == "landlock_abi")
      f.landlock_abi = std::atoi(value.c_str());
    else if (key == "landlock_detail")
      f.landlock_detail = value;
    else if (key == "userns")
      f.userns = value == "1";
    else if (key == "userns_detail")
      f.userns_detail = value;
    else if (key == "seccomp")
      f.seccomp = value == "1";
    else if (key == "seccomp_detail")
      f.seccomp_detail = value;
    else if (key == "mount_setattr")
      f.recursive_mount_flags = value == "1";
    else if (key == "mount_setattr_detail")
      f.recursive_mount_flags_detail = value;
    else if (key == "cgroup_kind")
      f.cgroup.kind = value == "v2"   ? cgroups::Kind::v2
                      : value == "v1" ? cgroups::Kind::v1
                                      : cgroups::Kind::none;
    else if (key == "cgroup_memory")
      f.cgroup.memory = value;
    else if (key == "cgroup_pids")
      f.cgroup.pids = value;
    else if (key == "cgroup_cpu")
      f.cgroup.cpu = value;
    else if (key == "cgroup_problem")
      f.cgroup.problems.push_back(value);
    else if (key == "pasta")
      f.pasta_path = value;
    else if (key == "pasta_detail")
      f.pasta_detail = value;
    else
      return sdk::make_error("an unknown doctor key: " + key);
  }
  if (seen < 14) return sdk::make_error("the doctor's report is incomplete");
  return f;
}

void hide_features(HostFeatures& f, const std::string& hide_list) {
  std::istringstream in(hide_list);
  for (std::string name; std::getline(in, name, ',');) {
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name.empty()) continue;
    if (std::find(kHideNames.begin(), kHideNames.end(), name) == kHideNames.end()) {
      f.unknown_hidden.push_back(name);
      continue;
    }
    f.hidden.push_back(name);
    if (name == "landlock") {
      f.landlock_abi = 0;
      f.landlock_detail = std::string("Landlock is unavailable") + kHiddenSuffix;
    } else if (name == "landlock-net") {
      f.landlock_abi = std::min(f.landlock_abi, 3);
    } else if (name == "landlock-scope") {
      f.landlock_abi = std::min(f.landlock_abi, 5);
    } else if (name == "userns") {
      f.userns = false;
      f.userns_detail = std::string("creating a user namespace failed") + kHiddenSuffix;
    } else if (name == "seccomp") {
      f.seccomp = false;
      f.seccomp_detail = std::string("loading the syscall filter failed") + kHiddenSuffix;
    } else if (name == "mount-setattr") {
      f.recursive_mount_flags = false;
      f.recursive_mount_flags_detail = std::string("mount_setattr failed") + kHiddenSuffix;
    } else if (name == "pasta") {
      f.pasta_path.clear();
      f.pasta_detail = std::string("pasta is unavailable") + kHiddenSuffix;
    } else {
      const bool all = name == "cgroup";
      if (all || name == "cgroup-memory") f.cgroup.memory.clear();
      if (all || name == "cgroup-pids") f.cgroup.pids.clear();
      if (all || name == "cgroup-cpu") f.cgroup.cpu.clear();
      f.cgroup.problems.push_back(
          (all ? std::string("cgroup delegation") : "the " + name.substr(7) + " controller") +
          " is hidden by the test hook " + kHideVariable);
      if (f.cgroup.memory.empty() && f.cgroup.pids.empty() && f.cgroup.cpu.empty())
        f.cgroup.kind = cgroups::Kind::none;
    }
  }
}

}  // namespace errand::bailey
