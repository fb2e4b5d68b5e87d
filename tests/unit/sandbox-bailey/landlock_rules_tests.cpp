#include <algorithm>
#include <catch2/catch_test_macros.hpp>

#include "plugins/sandbox-bailey/common/landlock_rules.hpp"
#include "plugins/sandbox-bailey/impl/policy_builder.hpp"

using namespace errand::bailey;
namespace ll = errand::bailey::landlock;

namespace {

Policy policy_for(errand::sdk::EgressMode egress,
                  errand::sdk::NetworkMode network = errand::sdk::NetworkMode::restricted) {
  errand::sdk::LaunchSpec s;
  s.session_id = "s1";
  s.project_dir = "/srv/projects/demo";
  s.state_dir = "/var/lib/errand/sessions/s1";
  s.broker_socket = "/var/lib/errand/brokers/s1.sock";
  s.argv = {"/usr/bin/kage"};  // the backend resolves a bare name before the policy is built
  s.policy.egress = egress;
  s.policy.network = network;
  s.policy.egress_ports = {443};
  s.policy.listen_ports = {8080};
  PolicyContext c;
  c.resolv_conf = "/var/lib/errand/bailey/run/s1/resolv.conf";
  auto built = build_policy(s, c);
  INFO((built ? std::string() : built.error().message));
  REQUIRE(built.has_value());
  return built->policy;
}

std::uint64_t rights_of(const ll::RuleSet& rules, const std::string& path) {
  for (const auto& r : rules.paths)
    if (r.path == path) return r.rights;
  return 0;
}

std::uint64_t port_rights(const ll::RuleSet& rules, std::uint64_t port) {
  for (const auto& r : rules.ports)
    if (r.port == port) return r.rights;
  return 0;
}

}  // namespace

TEST_CASE("with ABI 9, named unix sockets connect beneath /tmp, /workspace and /state only") {
  const auto rules = ll::rules_for(policy_for(errand::sdk::EgressMode::proxy), 9);
  CHECK((rules.handled.handled_access_fs & LANDLOCK_ACCESS_FS_RESOLVE_UNIX) != 0);
  for (const char* own : {"/tmp", "/workspace", "/state", "/run/errand"}) {
    INFO(own);
    CHECK((rights_of(rules, own) & LANDLOCK_ACCESS_FS_RESOLVE_UNIX) != 0);
  }
  // The system's sockets (under /usr, /etc or the new root itself) stay out of reach.
  for (const char* other : {"/", "/usr", "/etc/passwd", "/dev", "/dev/shm", "/proc"}) {
    INFO(other);
    CHECK((rights_of(rules, other) & LANDLOCK_ACCESS_FS_RESOLVE_UNIX) == 0);
  }
  // The relay's directory gets the one right and nothing else.
  CHECK(rights_of(rules, "/run/errand") == LANDLOCK_ACCESS_FS_RESOLVE_UNIX);
}

TEST_CASE("below ABI 9 the unix socket right is neither handled nor granted") {
  const auto rules = ll::rules_for(policy_for(errand::sdk::EgressMode::proxy), 7);
  CHECK((rules.handled.handled_access_fs & LANDLOCK_ACCESS_FS_RESOLVE_UNIX) == 0);
  for (const auto& r : rules.paths) {
    INFO(r.path);
    CHECK((r.rights & LANDLOCK_ACCESS_FS_RESOLVE_UNIX) == 0);
    CHECK(r.rights != 0);
  }
  // Nothing but that right was granted on the relay's directory, so no rule is left for it.
  CHECK(std::none_of(rules.paths.begin(), rules.paths.end(),
                     [](const ll::PathRule& r) { return r.path == "/run/errand"; }));
  CHECK((rights_of(rules, "/tmp") & LANDLOCK_ACCESS_FS_WRITE_FILE) != 0);
}

TEST_CASE("under the broker and with no network, Landlock handles no TCP right") {
  for (const auto network :
       {errand::sdk::NetworkMode::restricted, errand::sdk::NetworkMode::none}) {
    const auto rules = ll::rules_for(policy_for(errand::sdk::EgressMode::proxy, network), 7);
    CHECK(rules.handled.handled_access_net == 0);
    CHECK(rules.ports.empty());
  }
}

TEST_CASE("under egress open, binds only on listenPorts, connects to egress and listen ports") {
  const auto rules = ll::rules_for(policy_for(errand::sdk::EgressMode::open), 7);
  CHECK(rules.handled.handled_access_net ==
        (LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP));
  CHECK(port_rights(rules, 443) == LANDLOCK_ACCESS_NET_CONNECT_TCP);
  CHECK(port_rights(rules, 8080) ==
        (LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP));
  CHECK(rules.ports.size() == 2);
  // Before ABI 4 there are no port rules at all; the probe reports that as a gap.
  const auto old = ll::rules_for(policy_for(errand::sdk::EgressMode::open), 3);
  CHECK(old.handled.handled_access_net == 0);
  CHECK(old.ports.empty());
}
