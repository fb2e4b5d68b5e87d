#include "plugins/sandbox-bailey/common/landlock_rules.hpp"

#include <algorithm>

namespace errand::bailey::landlock {

namespace {

bool listed(const std::vector<std::string>& list, const std::string& path) {
  return std::find(list.begin(), list.end(), path) != list.end();
}

std::uint64_t path_rights(const Policy& p, const std::string& path) {
  std::uint64_t rights = 0;
  if (listed(p.list, path)) rights |= LANDLOCK_ACCESS_FS_READ_DIR;
  if (listed(p.read, path)) rights |= read_rights();
  if (listed(p.write, path)) rights |= write_rights();
  if (listed(p.execute, path)) rights |= execute_rights();
  if (listed(p.unix_connect, path)) rights |= LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
  return rights;
}

void add_port(RuleSet& rules, std::uint16_t port, std::uint64_t right) {
  for (auto& r : rules.ports)
    if (r.port == port) {
      r.rights |= right;
      return;
    }
  rules.ports.push_back({port, right});
}

}  // namespace

bool namespace_bounds_tcp(NetworkPlan plan) noexcept {
  return plan == NetworkPlan::broker || plan == NetworkPlan::none;
}

RuleSet rules_for(const Policy& p, int abi) {
  RuleSet rules;
  const int known = std::min(abi, kNewestKnownAbi);
  rules.handled.handled_access_fs = fs_rights(known);
  rules.handled.handled_access_net = namespace_bounds_tcp(p.network) ? 0 : net_rights(known);
  rules.handled.scoped = scopes(known);

  for (const auto* list : {&p.list, &p.read, &p.write, &p.execute, &p.unix_connect})
    for (const auto& path : *list) {
      const bool seen = std::any_of(rules.paths.begin(), rules.paths.end(),
                                    [&](const PathRule& r) { return r.path == path; });
      if (seen) continue;
      const auto rights = path_rights(p, path) & rules.handled.handled_access_fs;
      if (rights != 0) rules.paths.push_back({path, rights});
    }

  const auto net = rules.handled.handled_access_net;
  if (net & LANDLOCK_ACCESS_NET_CONNECT_TCP) {
    for (const auto port : p.connect_ports) add_port(rules, port, LANDLOCK_ACCESS_NET_CONNECT_TCP);
    // A server the session starts is of use only if its own clients reach it.
    for (const auto port : p.bind_ports) add_port(rules, port, LANDLOCK_ACCESS_NET_CONNECT_TCP);
  }
  if (net & LANDLOCK_ACCESS_NET_BIND_TCP)
    for (const auto port : p.bind_ports) add_port(rules, port, LANDLOCK_ACCESS_NET_BIND_TCP);
  return rules;
}

}  // namespace errand::bailey::landlock
