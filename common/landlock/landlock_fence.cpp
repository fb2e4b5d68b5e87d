#include "common/landlock/landlock_fence.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "common/landlock/landlock_abi.hpp"

namespace errand::landlock {

int enter_fence() noexcept {
  const auto abi = query_abi();
  if (abi.abi < 1) return -abi.error;
  // A ruleset must handle some right; execute, granted everywhere, takes nothing away.
  RulesetAttr attr{};
  attr.handled_access_fs = LANDLOCK_ACCESS_FS_EXECUTE;
  const int ruleset =
      static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, ruleset_attr_size(abi.abi), 0));
  if (ruleset < 0) return -errno;
  int result = 0;
  const int root = ::open("/", O_PATH | O_CLOEXEC);
  if (root < 0) {
    result = -errno;
  } else {
    PathBeneathAttr everywhere{LANDLOCK_ACCESS_FS_EXECUTE, root};
    if (syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &everywhere, 0) != 0 ||
        syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
      result = -errno;
    ::close(root);
  }
  ::close(ruleset);
  return result;
}

}  // namespace errand::landlock
