#include "plugins/sandbox-bailey/common/seccomp_filter.hpp"

#include <sched.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstring>

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif

namespace errand::bailey {

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
      "process_vm_readv", "process_vm_writev", "open_by_handle_at", "acct",
      // comparing and stealing other processes' file descriptors
      "kcmp", "pidfd_getfd",
      // io_uring bypasses the filter for the operations it performs
      "io_uring_setup", "io_uring_enter", "io_uring_register"};
  return names;
}

namespace {

class Builder {
 public:
  Builder() : ctx_(seccomp_init(SCMP_ACT_ALLOW)) {}

  bool deny(const char* name, int error) {
    const int nr = seccomp_syscall_resolve_name(name);
    // A call this architecture does not have cannot be made, so there is nothing to deny.
    if (nr == __NR_SCMP_ERROR) return true;
    return check(seccomp_rule_add(ctx_, SCMP_ACT_ERRNO(error), nr, 0), name);
  }

  template <class... Cmp>
  bool deny_when(int nr, const char* what, int error, Cmp... cmp) {
    return check(seccomp_rule_add(ctx_, SCMP_ACT_ERRNO(error), nr, sizeof...(cmp), cmp...), what);
  }

  bool check(int rc, const char* what) {
    if (rc == 0) return true;
    error_ = std::string("seccomp rule for ") + what + ": " + std::strerror(-rc);
    return false;
  }

  scmp_filter_ctx ctx_;
  std::string error_;
};

// personality() may only select the plain Linux personalities or query the current one:
// 0, PER_LINUX32 (8), UNAME26 (0x20000), both together, and 0xffffffff. libseccomp cannot
// compare one argument against several values in one rule, so the refusal is spelled as rules
// that each catch a set of forbidden bit patterns.
bool deny_unsafe_personality(Builder& b) {
  const int nr = SCMP_SYS(personality);
  constexpr std::uint32_t allowed_bits = 0x8 | 0x20000;
  for (int bit = 1; bit < 32; ++bit) {
    const std::uint64_t mask = std::uint64_t{1} << bit;
    // A bit outside the allowed ones, with bit 0 clear: never the query value.
    if ((allowed_bits & mask) == 0 &&
        !b.deny_when(nr, "personality", EPERM, SCMP_A0(SCMP_CMP_MASKED_EQ, mask | 1, mask)))
      return false;
    // Bit 0 set with some other bit clear: anything odd except 0xffffffff.
    if (!b.deny_when(nr, "personality", EPERM, SCMP_A0(SCMP_CMP_MASKED_EQ, mask | 1, 1)))
      return false;
  }
  return true;
}

}  // namespace

SeccompFilter build_seccomp_filter() {
  Builder b;
  SeccompFilter out;
  if (b.ctx_ == nullptr) {
    out.error = "seccomp_init failed";
    return out;
  }
  // Another architecture's syscall numbers would bypass every rule below.
  bool ok = b.check(seccomp_attr_set(b.ctx_, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS),
                    "foreign architectures") &&
            b.check(seccomp_attr_set(b.ctx_, SCMP_FLTATR_CTL_NNP, 1), "no_new_privs");
  for (const auto& name : denied_syscall_names()) ok = ok && b.deny(name.c_str(), EPERM);

  // clone3 passes its flags in memory the filter cannot read; ENOSYS makes libc use clone.
  ok = ok && b.deny("clone3", ENOSYS);
  for (const unsigned long flag : {CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
                                   CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET}) {
    ok = ok && b.deny_when(SCMP_SYS(clone), "clone with a new namespace", EPERM,
                           SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
  }
  // The request is an int; compare only the low 32 bits so high garbage cannot slip past.
  for (const unsigned long request : {TIOCSTI, TIOCLINUX}) {
    ok = ok && b.deny_when(SCMP_SYS(ioctl), "ioctl TIOCSTI/TIOCLINUX", EPERM,
                           SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, request));
  }
  ok = ok && deny_unsafe_personality(b);

  if (!ok) {
    out.error = b.error_;
    seccomp_release(b.ctx_);
    return out;
  }
  out.ctx = b.ctx_;
  return out;
}

}  // namespace errand::bailey
