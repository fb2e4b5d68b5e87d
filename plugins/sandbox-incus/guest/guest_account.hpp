#pragma once

// The agent's account in the guest, read from the guest's own /etc/passwd and /etc/group (the
// image's install creates it). Read by hand rather than through getpwuid and initgroups: a
// static binary cannot use NSS, and Incus gives an exec'd process no supplementary groups.

#include <sys/types.h>

#include <errand/sdk/result.hpp>
#include <string>
#include <vector>

namespace errand::incus::guest {

struct GuestAccount {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // the primary group and every group listing name as a member
};

sdk::Result<GuestAccount> find_account(uid_t uid, const std::string& passwd = "/etc/passwd",
                                       const std::string& group = "/etc/group");

// setgroups, setgid, setuid, in that order, and a check that all three took. Changing the ids
// clears PR_SET_PDEATHSIG, so a caller sets that afterwards.
sdk::Result<void> become(const GuestAccount& account);

}  // namespace errand::incus::guest
