#pragma once

// The account the daemon runs as.

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

namespace errand::setup {

struct Account {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::filesystem::path home;
  std::string shell;
};

// From the password database, or nothing when there is no such account.
std::optional<Account> find_account(const std::string& name);

}  // namespace errand::setup
