#include "plugins/sandbox-incus/guest/guest_account.hpp"

#include <grp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <string_view>

namespace errand::incus::guest {

namespace {

std::vector<std::string_view> split(std::string_view line, char separator) {
  std::vector<std::string_view> fields;
  while (true) {
    const auto at = line.find(separator);
    fields.push_back(line.substr(0, at));
    if (at == std::string_view::npos) return fields;
    line.remove_prefix(at + 1);
  }
}

template <class Id>
bool read_id(std::string_view text, Id& id) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  return !text.empty() && ec == std::errc{} && end == text.data() + text.size();
}

sdk::Error system_error(const std::string& what) {
  return sdk::make_error(what + ": " + std::strerror(errno));
}

}  // namespace

sdk::Result<GuestAccount> find_account(uid_t uid, const std::string& passwd,
                                       const std::string& group) {
  std::ifstream users(passwd);
  if (!users) return system_error("reading " + passwd);
  GuestAccount account;
  bool found = false;
  for (std::string line; !found && std::getline(users, line);) {
    const auto fields = split(line, ':');
    uid_t entry_uid = 0;
    if (fields.size() < 4 || !read_id(fields[2], entry_uid) || entry_uid != uid) continue;
    if (!read_id(fields[3], account.gid))
      return sdk::make_error(passwd + " gives uid " + std::to_string(uid) +
                             " a group id that is not a number");
    account.name = fields[0];
    account.uid = uid;
    found = true;
  }
  if (!found)
    return sdk::make_error("uid " + std::to_string(uid) + " has no entry in the guest's " + passwd +
                               "; the image must create the agent's account "
                               "(sandbox.incus.guestUid names it)",
                           sdk::Error::Kind::not_found);

  account.groups.push_back(account.gid);
  std::ifstream groups(group);
  if (!groups) return system_error("reading " + group);
  for (std::string line; std::getline(groups, line);) {
    const auto fields = split(line, ':');
    gid_t gid = 0;
    if (fields.size() < 4 || !read_id(fields[2], gid)) continue;
    const auto members = split(fields[3], ',');
    if (std::find(members.begin(), members.end(), account.name) != members.end() &&
        std::find(account.groups.begin(), account.groups.end(), gid) == account.groups.end())
      account.groups.push_back(gid);
  }
  return account;
}

sdk::Result<void> become(const GuestAccount& account) {
  if (::setgroups(account.groups.size(), account.groups.data()) != 0)
    return system_error("setting the groups of " + account.name);
  if (::setgid(account.gid) != 0)
    return system_error("changing to group " + std::to_string(account.gid));
  if (::setuid(account.uid) != 0)
    return system_error("changing to " + account.name + " (uid " + std::to_string(account.uid) +
                        ")");
  if (::getuid() != account.uid || ::geteuid() != account.uid || ::getgid() != account.gid ||
      ::getegid() != account.gid)
    return sdk::make_error("the ids of " + account.name + " did not take");
  return {};
}

}  // namespace errand::incus::guest
