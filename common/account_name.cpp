#include "common/account_name.hpp"

#include <pwd.h>
#include <unistd.h>

#include <vector>

namespace errand::common {

std::string this_account_name() {
  std::vector<char> buf(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (::getpwuid_r(::getuid(), &entry, buf.data(), buf.size(), &found) == 0 && found != nullptr)
    return found->pw_name;
  return "uid " + std::to_string(::getuid());
}

}  // namespace errand::common
