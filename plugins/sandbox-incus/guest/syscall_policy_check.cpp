#include "plugins/sandbox-incus/guest/syscall_policy_check.hpp"

#include <linux/btrfs.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif

namespace errand::incus::guest {

namespace {

std::string answer(long result, int error) {
  return result >= 0 ? std::string("succeeded")
                     : std::string("failed with ") + strerrorname_np(error);
}

sdk::Result<void> expect(const char* call, long result, int error, int refused_with) {
  if (result < 0 && error == refused_with) return {};
  return sdk::make_error(std::string("the guest's system-call policy lacks errand's rules: ") +
                             call + " " + answer(result, error) + " where they answer " +
                             strerrorname_np(refused_with) +
                             "; the instance was not made with security.syscalls.deny as "
                             "sandbox-incus asks, so the agent was not started",
                         sdk::Error::Kind::refused);
}

}  // namespace

sdk::Result<void> check_syscall_policy() {
  errno = 0;
  const long ring = ::syscall(__NR_io_uring_setup, 1, nullptr);
  if (auto ok = expect("io_uring_setup", ring, errno, EPERM); !ok) return ok;
  errno = 0;
  const int vsock = ::socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int vsock_error = errno;
  if (vsock >= 0) ::close(vsock);
  if (auto ok = expect("a vsock socket", vsock, vsock_error, EAFNOSUPPORT); !ok) return ok;
  errno = 0;
  char byte = 0;
  const int injected = ::ioctl(-1, TIOCSTI, &byte);
  if (auto ok = expect("ioctl TIOCSTI", injected, errno, EPERM); !ok) return ok;
  // On no file at all: the kernel would answer EBADF, errand's rule answers first.
  errno = 0;
  btrfs_ioctl_vol_args args{};
  const int subvolume = ::ioctl(-1, BTRFS_IOC_SUBVOL_CREATE, &args);
  return expect("ioctl BTRFS_IOC_SUBVOL_CREATE", subvolume, errno, ENOTTY);
}

}  // namespace errand::incus::guest
