#include "plugins/sandbox-bailey/common/landlock_ruleset.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/landlock/landlock_abi.hpp"
#include "plugins/sandbox-bailey/common/landlock_rules.hpp"

namespace errand::bailey::landlock {

namespace {

sdk::Error failed(const std::string& what, int error) {
  return sdk::make_error(what + ": " + std::strerror(error));
}

}  // namespace

sdk::Result<int> make_ruleset(const Policy& policy, int abi) {
  auto rules = rules_for(policy, abi);
  const int ruleset = static_cast<int>(
      ::syscall(SYS_landlock_create_ruleset, &rules.handled, ruleset_attr_size(abi), 0));
  if (ruleset < 0) return failed("creating the Landlock ruleset", errno);
  for (const auto& r : rules.paths) {
    const int fd = ::open(r.path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) continue;
      const int error = errno;
      ::close(ruleset);
      return failed("opening " + r.path + " for its Landlock rule", error);
    }
    struct stat st {};
    ::fstat(fd, &st);
    auto rights = r.rights;
    if (!S_ISDIR(st.st_mode)) rights &= file_rights();
    PathBeneathAttr rule{rights, fd};
    const bool added =
        rights == 0 || ::syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &rule, 0) == 0;
    const int error = errno;
    ::close(fd);
    if (!added) {
      ::close(ruleset);
      return failed("adding the Landlock rule for " + r.path, error);
    }
  }
  for (const auto& r : rules.ports) {
    NetPortAttr rule{r.rights, r.port};
    if (::syscall(SYS_landlock_add_rule, ruleset, kRuleNetPort, &rule, 0) != 0) {
      const int error = errno;
      ::close(ruleset);
      return failed("adding the Landlock rule for TCP port " + std::to_string(r.port), error);
    }
  }
  return ruleset;
}

}  // namespace errand::bailey::landlock
