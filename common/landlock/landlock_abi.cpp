#include "common/landlock/landlock_abi.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace errand::landlock {

AbiQuery query_abi() noexcept {
  const long abi =
      syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 0) return {0, errno};
  return {static_cast<int>(abi), 0};
}

std::uint64_t fs_rights(int abi) noexcept {
  if (abi < 1) return 0;
  std::uint64_t rights =
      LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
      LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
      LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
      LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
      LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
  if (abi >= 5) rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
  if (abi >= 9) rights |= LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
  return rights;
}

std::uint64_t net_rights(int abi) noexcept {
  return abi >= 4 ? (LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP) : 0;
}

std::uint64_t scopes(int abi) noexcept {
  return abi >= 6 ? (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL) : 0;
}

std::uint64_t file_rights() noexcept {
  return LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
         LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV |
         LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
}

std::uint64_t read_rights() noexcept {
  return LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
}

std::uint64_t write_rights() noexcept {
  return LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
         LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
         LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
         LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
         LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE |
         LANDLOCK_ACCESS_FS_IOCTL_DEV;
}

std::uint64_t execute_rights() noexcept {
  return LANDLOCK_ACCESS_FS_EXECUTE;
}

std::vector<std::string> unenforced_by(int abi) {
  std::vector<std::string> out;
  if (abi < 1) {
    out.push_back(
        "no Landlock rule applies: the filesystem is bounded by the mount namespace alone");
    return out;
  }
  if (abi < 2)
    out.push_back(
        "moving or linking a file between directories is refused outright (ABI 2 adds "
        "the refer right)");
  if (abi < 3) out.push_back("truncating a readable file is not restricted (needs ABI 3)");
  if (abi < 4) out.push_back("TCP ports are not restricted by Landlock (needs ABI 4, Linux 6.7)");
  if (abi < 5) out.push_back("ioctl on device files is not restricted (needs ABI 5)");
  if (abi < 6)
    out.push_back(
        "abstract unix sockets and signals are not scoped to the session (needs ABI 6, "
        "Linux 6.12)");
  if (abi < 9)
    out.push_back(
        "connecting to named unix sockets is not restricted by Landlock (needs ABI 9); "
        "only the sockets bound into the sandbox are reachable");
  return out;
}

std::size_t ruleset_attr_size(int abi) noexcept {
  if (abi >= 6) return sizeof(RulesetAttr);
  if (abi >= 4) return offsetof(RulesetAttr, scoped);
  return offsetof(RulesetAttr, handled_access_net);
}

}  // namespace errand::landlock
