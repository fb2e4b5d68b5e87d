#include "common/setup_steps/account.hpp"

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

}  // namespace errand::setup
