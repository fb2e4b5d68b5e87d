#include "plugins/sandbox-bailey/launcher/sandbox_root.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <set>
#include <string>

#include "plugins/sandbox-bailey/launcher/prepared.hpp"

namespace errand::bailey::launcher {

namespace {

// The host's root while the new one is assembled, and the new root itself.
constexpr const char* kOld = "/oldroot";
constexpr const char* kNew = "/newroot";

void mount_or_fail(const char* source, const std::string& target, const char* type,
                   unsigned long flags, const std::string& data, const std::string& what) {
  if (::mount(source, target.c_str(), type, flags, data.empty() ? nullptr : data.c_str()) != 0)
    fail_errno(what);
}

std::string parent_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

// mkdir -p that tries the whole path first: most mount points sit in a directory an earlier one
// made, so one call usually does, where walking down from the root cost a call per component.
// A directory made or found once is remembered: many files are bound into /etc and /dev, and
// nothing removes a directory while the root is assembled (PID 1 is single-threaded).
void make_dirs(const std::string& path, mode_t mode = 0755) {
  static std::set<std::string> known;
  if (known.count(path) != 0) return;
  if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST) {
    if (errno != ENOENT || path == "/") fail_errno("creating the mount point " + path);
    make_dirs(parent_of(path), mode);
    if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST)
      fail_errno("creating the mount point " + path);
  }
  known.insert(path);
}

// An empty file to bind a file onto: mknod makes it in one call where open and close take two.
void make_file(const std::string& path) {
  make_dirs(parent_of(path));
  if (::mknod(path.c_str(), S_IFREG | 0644, 0) != 0 && errno != EEXIST)
    fail_errno("creating the mount point " + path);
}

// A bind remount may only add flags to the ones the source mount has locked, so carry them.
unsigned long locked_flags(const std::string& path) {
  struct statvfs vfs {};
  if (::statvfs(path.c_str(), &vfs) != 0) return 0;
  unsigned long flags = 0;
  if (vfs.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (vfs.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (vfs.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (vfs.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (vfs.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (vfs.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  if (vfs.f_flag & ST_RDONLY) flags |= MS_RDONLY;
  return flags;
}

void restrict_mount(const std::string& target, bool writable) {
  unsigned long flags = MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV | locked_flags(target);
  if (!writable) flags |= MS_RDONLY;
  mount_or_fail(nullptr, target, nullptr, flags, {}, "making " + target + " read-only");
}

// MS_REC brings the source's submounts into the bind, but a remount changes only its top, so
// a mount below a read-only path would stay writable. mount_setattr (Linux 5.12) sets the
// flags on the whole tree; on an older kernel only the top is restricted, which the probe
// reports as a gap.
void restrict_tree(const std::string& target, bool writable) {
  mount_attr attr{};
  attr.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (writable ? 0 : MOUNT_ATTR_RDONLY);
  if (::mount_setattr(AT_FDCWD, target.c_str(), AT_RECURSIVE, &attr, sizeof attr) == 0) return;
  if (errno != ENOSYS) fail_errno("restricting every mount below " + target);
  restrict_mount(target, writable);
}

// Binds one host path; a symlink is recreated rather than followed, so /bin -> usr/bin stays
// a link into what is bound. A system path this host lacks is skipped; a required one (the
// broker's socket, errand's resolv.conf) missing is an error.
void bind_one(const std::string& source, const std::string& target, bool writable,
              bool required = false) {
  const auto from = std::string(kOld) + source;
  const auto to = std::string(kNew) + target;
  struct stat st {};
  if (::lstat(from.c_str(), &st) != 0) {
    if (errno == ENOENT && !required) return;
    fail_errno("reading " + source);
  }
  if (S_ISLNK(st.st_mode)) {
    char link[4096];
    const ssize_t n = ::readlink(from.c_str(), link, sizeof link - 1);
    if (n < 0) fail_errno("reading the link " + source);
    link[n] = '\0';
    make_dirs(parent_of(to));
    if (::symlink(link, to.c_str()) != 0 && errno != EEXIST) fail_errno("recreating " + target);
    return;
  }
  if (S_ISDIR(st.st_mode))
    make_dirs(to);
  else
    make_file(to);
  mount_or_fail(from.c_str(), to, nullptr, MS_BIND | MS_REC, {}, "binding " + source);
  restrict_tree(to, writable);
}

void make_dev(const Policy& policy) {
  const auto dev = std::string(kNew) + "/dev";
  make_dirs(dev);
  mount_or_fail("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k",
                "mounting /dev");
  for (const char* node : {"null", "zero", "full", "random", "urandom", "tty"}) {
    const auto from = std::string(kOld) + "/dev/" + node;
    const auto to = dev + "/" + node;
    make_file(to);
    mount_or_fail(from.c_str(), to, nullptr, MS_BIND, {}, std::string("binding /dev/") + node);
  }
  const struct {
    const char* target;
    const char* link;
  } links[] = {{"fd", "/proc/self/fd"},
               {"stdin", "/proc/self/fd/0"},
               {"stdout", "/proc/self/fd/1"},
               {"stderr", "/proc/self/fd/2"},
               {"ptmx", "pts/ptmx"}};
  for (const auto& l : links)
    if (::symlink(l.link, (dev + "/" + l.target).c_str()) != 0)
      fail_errno(std::string("creating /dev/") + l.target);
  make_dirs(dev + "/pts");
  mount_or_fail("devpts", dev + "/pts", "devpts", MS_NOSUID | MS_NOEXEC,
                "newinstance,ptmxmode=0666,mode=620", "mounting /dev/pts");
  make_dirs(dev + "/shm");
  mount_or_fail("tmpfs", dev + "/shm", "tmpfs", MS_NOSUID | MS_NODEV,
                "mode=1777,size=" + std::to_string(policy.shm_size), "mounting /dev/shm");
}

// A fresh /proc for the new PID namespace, with the files that reach beyond it read-only: the
// agent's root is the daemon's uid, which the kernel would otherwise let write some of them.
void make_proc() {
  const auto proc = std::string(kNew) + "/proc";
  make_dirs(proc);
  mount_or_fail("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, {}, "mounting /proc");
  for (const char* sub : {"sys", "sysrq-trigger", "irq", "bus"}) {
    const auto path = proc + "/" + sub;
    if (::access(path.c_str(), F_OK) != 0) continue;
    mount_or_fail(path.c_str(), path, nullptr, MS_BIND | MS_REC, {},
                  std::string("binding /proc/") + sub);
    restrict_tree(path, false);
  }
}

}  // namespace

void build_sandbox_root(const Policy& policy) {
  // Nothing done here may propagate back to the host's mount table.
  mount_or_fail(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, {}, "making the mounts private");

  // Assemble on a scratch tmpfs, with the host's root moved aside to /oldroot, so binds read
  // their sources from the host even where the scratch space covered them (e.g. under /tmp).
  mount_or_fail("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k",
                "mounting the scratch tmpfs");
  if (::mkdir("/tmp/newroot", 0755) != 0 || ::mkdir("/tmp/oldroot", 0755) != 0)
    fail_errno("creating the scratch directories");
  if (::syscall(SYS_pivot_root, "/tmp", "/tmp/oldroot") != 0) fail_errno("pivot_root to scratch");
  if (::chdir("/") != 0) fail_errno("chdir to the scratch root");

  mount_or_fail("tmpfs", kNew, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m",
                "mounting the new root");
  for (const auto& b : policy.binds) bind_one(b.source, b.target, b.writable);
  bind_one(policy.resolv_conf, "/etc/resolv.conf", false, true);
  if (policy.network == NetworkPlan::broker)
    bind_one(policy.broker_socket, kBrokerSocketInside, false, true);

  const auto tmp = std::string(kNew) + "/tmp";
  make_dirs(tmp);
  mount_or_fail("tmpfs", tmp, "tmpfs", MS_NOSUID | MS_NODEV,
                "mode=1777,size=" + std::to_string(policy.tmp_size), "mounting /tmp");
  make_dev(policy);
  make_proc();

  // Make the assembled tree "/", then drop the scratch space stacked over it. The host's root
  // is mounted below the scratch space, so the one lazy unmount detaches both together: a
  // second unmount of the host's root alone would only cost another pass through the kernel's
  // mount locks.
  if (::chdir(kNew) != 0) fail_errno("chdir to the new root");
  if (::syscall(SYS_pivot_root, ".", ".") != 0) fail_errno("pivot_root to the new root");
  if (::umount2(".", MNT_DETACH) != 0) fail_errno("detaching the scratch root and the host's");
  if (::chdir("/") != 0) fail_errno("chdir to /");
  mount_or_fail(nullptr, "/", nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, {},
                "making / read-only");
}

}  // namespace errand::bailey::launcher
