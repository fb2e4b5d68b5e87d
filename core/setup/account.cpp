#include "core/setup/account.hpp"

#include <grp.h>
#include <pwd.h>

#include <cstring>
#include <vector>

namespace errand::setup {

std::optional<Account> find_account(const std::string& name) {
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (::getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 ||
      found == nullptr)
    return std::nullopt;
  return Account{found->pw_name, found->pw_uid, found->pw_gid, found->pw_dir,
                 found->pw_shell != nullptr ? found->pw_shell : ""};
}

bool in_group(const std::string& account, const std::string& group) {
  std::vector<char> buffer(65536);
  struct group entry {};
  struct group* found = nullptr;
  if (::getgrnam_r(group.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 ||
      found == nullptr)
    return false;
  for (char** member = found->gr_mem; *member != nullptr; ++member)
    if (account == *member) return true;
  return false;
}

}  // namespace errand::setup
