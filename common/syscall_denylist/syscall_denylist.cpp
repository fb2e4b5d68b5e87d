#include "common/syscall_denylist/syscall_denylist.hpp"

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <algorithm>

namespace errand::sandbox_rules {

const std::vector<std::string>& denied_syscall_names() {
  static const std::vector<std::string> names = {
      // tracing another process and the kernel keyring
      "ptrace", "add_key", "request_key", "keyctl",
      // loading code into the kernel
      "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
      // large kernel surfaces an agent never needs
      "bpf", "perf_event_open", "userfaultfd",
      // the machine itself
      "swapon", "swapoff", "reboot",
      // the mount tree the launcher built
      "mount", "umount2", "fsopen", "fsconfig", "fsmount", "move_mount", "open_tree", "fspick",
      "mount_setattr", "pivot_root",
      // namespaces
      "setns", "unshare",
      // other processes' memory, file handles, accounting
      "process_vm_readv", "process_vm_writev", "open_by_handle_at", "name_to_handle_at", "acct",
      // legacy surfaces with a history of kernel bugs: per-process segment tables, splicing
      // user pages into pipes, disk quotas
      "modify_ldt", "vmsplice", "quotactl", "quotactl_fd",
      // comparing and stealing other processes' file descriptors
      "kcmp", "pidfd_getfd",
      // io_uring bypasses the filter for the operations it performs
      "io_uring_setup", "io_uring_enter", "io_uring_register"};
  return names;
}

const std::vector<int>& allowed_socket_families() {
  static const std::vector<int> families = {AF_UNIX, AF_INET, AF_INET6, AF_NETLINK};
  return families;
}

const RefusedSocketFamilies& refused_socket_families() {
  static const RefusedSocketFamilies refused = [] {
    const auto& allowed = allowed_socket_families();
    RefusedSocketFamilies out;
    out.highest = *std::max_element(allowed.begin(), allowed.end());
    for (int family = 0; family < out.highest; ++family)
      if (std::find(allowed.begin(), allowed.end(), family) == allowed.end())
        out.listed.push_back(family);
    return out;
  }();
  return refused;
}

const std::vector<unsigned long>& refused_terminal_ioctls() {
  static const std::vector<unsigned long> requests = {TIOCSTI, TIOCLINUX, TIOCSETD};
  return requests;
}

}  // namespace errand::sandbox_rules
