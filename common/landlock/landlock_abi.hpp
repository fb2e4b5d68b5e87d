#pragma once

// Landlock, by ABI version. Debian 12's linux-libc-dev stops at ABI 2, so every newer constant
// and the newer ruleset attribute layout are defined here when the system header lacks them.

#include <linux/landlock.h>
#include <sys/syscall.h>

#include <cstdint>
#include <string>
#include <vector>

#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_FS_RESOLVE_UNIX
#define LANDLOCK_ACCESS_FS_RESOLVE_UNIX (1ULL << 16)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

namespace errand::landlock {

// The newest ABI whose rights this build knows. A newer kernel is used at this level and the
// probe says what that leaves out.
inline constexpr int kNewestKnownAbi = 9;

// The attribute layout of ABI 6 and later; older kernels read a prefix of it.
struct RulesetAttr {
  std::uint64_t handled_access_fs = 0;
  std::uint64_t handled_access_net = 0;
  std::uint64_t scoped = 0;
};

struct PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
} __attribute__((packed));

struct NetPortAttr {
  std::uint64_t allowed_access;
  std::uint64_t port;
};

inline constexpr int kRulePathBeneath = 1;
inline constexpr int kRuleNetPort = 2;

struct AbiQuery {
  int abi = 0;    // 0 when Landlock cannot be used
  int error = 0;  // errno of the query when abi is 0
};

AbiQuery query_abi() noexcept;

// Every filesystem right an ABI knows, capped at kNewestKnownAbi.
std::uint64_t fs_rights(int abi) noexcept;
std::uint64_t net_rights(int abi) noexcept;
std::uint64_t scopes(int abi) noexcept;

// Rights that apply to a file that is not a directory.
std::uint64_t file_rights() noexcept;
std::uint64_t read_rights() noexcept;
std::uint64_t write_rights() noexcept;
std::uint64_t execute_rights() noexcept;

// What an ABI below kNewestKnownAbi leaves unenforced, one sentence each.
std::vector<std::string> unenforced_by(int abi);

// The size of the attribute struct an ABI accepts.
std::size_t ruleset_attr_size(int abi) noexcept;

}  // namespace errand::landlock
