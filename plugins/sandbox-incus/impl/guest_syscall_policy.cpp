#include "plugins/sandbox-incus/impl/guest_syscall_policy.hpp"

#include <fmt/format.h>

#include <linux/btrfs.h>

#include <cerrno>

#include "common/syscall_denylist/syscall_denylist.hpp"

namespace errand::incus {

namespace {

void refuse(std::string& out, const char* call, int error) {
  out += fmt::format("{} errno {}\n", call, error);
}

}  // namespace

std::string guest_syscall_policy() {
  std::string out = "[all]\n";
  const auto& refused = sandbox_rules::refused_socket_families();
  for (const char* call : {"socket", "socketpair"}) {
    for (const int family : refused.listed)
      out += fmt::format("{} errno {} [0,{},SCMP_CMP_EQ]\n", call, EAFNOSUPPORT, family);
    out += fmt::format("{} errno {} [0,{},SCMP_CMP_GT]\n", call, EAFNOSUPPORT, refused.highest);
  }
  // 32-bit x86 programs also reach sockets through socketcall, whose arguments lie in memory no
  // filter reads; it is refused whole, with ENOSYS so a libc uses the direct calls above.
  refuse(out, "socketcall", ENOSYS);
  // LXC's argument form is [index,value,operator,mask]; the request is an int, so only its low
  // 32 bits are compared and high garbage cannot slip past.
  for (const unsigned long request : sandbox_rules::refused_terminal_ioctls())
    out +=
        fmt::format("ioctl errno {} [1,{},SCMP_CMP_MASKED_EQ,{}]\n", EPERM, request, 0xffffffffUL);
  // A btrfs subvolume or snapshot the guest made would sit outside the qgroup that bounds its
  // root disk (sandbox.incus.rootSize), so those four requests are refused. ENOTTY is what a
  // file on another filesystem answers; systemd and the container engines then make a plain
  // directory instead.
  for (const unsigned long request : {BTRFS_IOC_SNAP_CREATE, BTRFS_IOC_SUBVOL_CREATE,
                                      BTRFS_IOC_SNAP_CREATE_V2, BTRFS_IOC_SUBVOL_CREATE_V2})
    out +=
        fmt::format("ioctl errno {} [1,{},SCMP_CMP_MASKED_EQ,{}]\n", ENOTTY, request, 0xffffffffUL);
  for (const char* call : {"io_uring_setup", "io_uring_enter", "io_uring_register",
                           "perf_event_open", "bpf", "userfaultfd", "modify_ldt"})
    refuse(out, call, EPERM);
  // ENOSYS, not EPERM: runc (Docker's runtime) goes on without a session keyring when the kernel
  // seems to lack the calls, and refuses to start a container on any other answer.
  for (const char* call : {"keyctl", "add_key", "request_key"}) refuse(out, call, ENOSYS);
  return out;
}

}  // namespace errand::incus
