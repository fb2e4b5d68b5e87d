#include <catch2/catch_test_macros.hpp>

#include "core/sandbox/policy_from_config.hpp"

#include <boost/json/parse.hpp>
#include "plugins/sandbox-bailey/impl/enforcement_report.hpp"
#include "tests/support/text_contains.hpp"

using namespace errand::bailey;
namespace cgroups = errand::cgroups;

namespace {

HostFeatures full_host() {
  HostFeatures f;
  f.landlock_abi = 7;
  f.userns = true;
  f.seccomp = true;
  f.recursive_mount_flags = true;
  f.cgroup.kind = cgroups::Kind::v1;
  f.cgroup.memory = "/sys/fs/cgroup/memory";
  f.cgroup.pids = "/sys/fs/cgroup/pids";
  f.cgroup.cpu = "/sys/fs/cgroup/cpu";
  f.pasta_path = "/usr/bin/pasta";
  return f;
}

// The policy the core builds when the configuration leaves every other sandbox key out, with
// memory and CPUs written as 4g and 2, as the seed's startup report shows them (the
// default share would make the wording depend on the machine the test runs on).
errand::sdk::SandboxPolicy defaults() {
  const auto limits = boost::json::parse(R"({"sandbox": {"memory": "4g", "cpus": 2}})");
  auto s = errand::sandbox::policy_from_config(limits.as_object());
  REQUIRE(s.has_value());
  return *s;
}

std::string gaps_of(const errand::sdk::EnforcementReport& r) {
  std::string out;
  for (const auto& g : r.gaps) out += g.guarantee + " -- " + g.reason + "\n";
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

using errand::test::contains;

}  // namespace

TEST_CASE("bailey declares that it runs the host's install and can hide the host's address") {
  for (const auto& r : {build_report(full_host(), defaults()), unprobed_report()}) {
    CHECK(r.backend == "bailey");
    CHECK(r.capabilities.agent_from_host_install);
    CHECK_FALSE(r.capabilities.agent_in_image);
    CHECK(r.capabilities.hides_host_address);
  }
}

TEST_CASE("a full host under the defaults has no gaps and says how each guarantee is kept") {
  const auto r = build_report(full_host(), defaults());
  INFO(gaps_of(r));
  CHECK(r.gaps.empty());
  CHECK(r.backend == "bailey");
  CHECK(r.summary == "sessions run as confined host processes using the host's own tools");
  const auto enforced = joined(r.enforced);
  CHECK(contains(enforced, "Landlock ABI 7"));
  CHECK(contains(enforced, "relay on 127.0.0.1:3128"));
  CHECK(contains(enforced, "limit: memory 4g per session (cgroup v1)"));
  CHECK(contains(enforced, "limit: 2 cpus per session (cgroup v1)"));
  CHECK(contains(enforced, "limit: 512 processes per session (cgroup v1)"));
  const auto notes = joined(r.notes);
  CHECK(contains(notes, "no single file may exceed 1g, enforced as an rlimit"));
  CHECK(contains(notes, "past 5g or 1000000 files, directories and links is stopped"));
  CHECK(contains(notes, "a tree the daemon cannot read stops it too"));
}

TEST_CASE("hidden cgroups become the limits gap, worded as the seed's startup report does") {
  auto host = full_host();
  hide_features(host, "cgroup");
  const auto r = build_report(host, defaults());
  REQUIRE(r.gaps.size() == 1);
  CHECK(r.gaps[0].guarantee ==
        "per-session memory 4g, 2 cpus and 512 processes limits are not applied");
  CHECK(contains(r.gaps[0].reason, "this host reports no cgroup delegation"));
  CHECK(contains(r.gaps[0].reason, "hidden by the test hook ERRAND_BAILEY_HIDE"));
  CHECK(contains(r.gaps[0].reason, "BAILEY_CGROUP_ROOT"));
  // The one command that fixes it for an ordinary account running errand from a shell.
  CHECK(
      contains(r.gaps[0].reason, "sudo errand up --cgroup-only --account \"$(id -un)\" --join $$"));
  CHECK(contains(joined(r.notes), "removed cgroup from this report"));
}

TEST_CASE("under cgroup v2 a daemon in a subtree's supervisor finds the sessions root beside it") {
  // The layout errand up --cgroup-only makes, seen from the daemon inside it.
  CHECK(cgroups::v2_sessions_beside("0::/errand/supervisor\n", "/sys/fs/cgroup") ==
        "/sys/fs/cgroup/errand/sessions");
  CHECK(cgroups::v2_sessions_beside("0::/system.slice/errand.service/supervisor\n", "/m") ==
        "/m/system.slice/errand.service/sessions");
  // Anywhere else, nothing is guessed: a user's session scope, the root, a v1 host's lines.
  CHECK(cgroups::v2_sessions_beside("0::/user.slice/user-1000.slice/session-3.scope\n",
                                    "/sys/fs/cgroup")
            .empty());
  CHECK(cgroups::v2_sessions_beside("0::/\n", "/sys/fs/cgroup").empty());
  CHECK(cgroups::v2_sessions_beside("0::/supervisor-not\n", "/sys/fs/cgroup").empty());
  CHECK(cgroups::v2_sessions_beside("4:memory:/errand/supervisor\n1:name=systemd:/\n",
                                    "/sys/fs/cgroup")
            .empty());
}

TEST_CASE("hiding one controller names only that limit") {
  auto host = full_host();
  hide_features(host, "cgroup-pids");
  const auto r = build_report(host, defaults());
  REQUIRE(r.gaps.size() == 1);
  CHECK(r.gaps[0].guarantee == "per-session 512 processes limits are not applied");
  CHECK(contains(r.gaps[0].reason, "does not cover them"));
}

TEST_CASE("hidden Landlock, user namespaces and seccomp each say what is lost") {
  auto host = full_host();
  hide_features(host, "landlock, userns ,seccomp");
  const auto r = build_report(host, defaults());
  const auto gaps = gaps_of(r);
  INFO(gaps);
  CHECK(r.gaps.size() == 3);
  CHECK(contains(gaps,
                 "filesystem access held to the policy by Landlock -- Landlock is "
                 "unavailable (hidden by the test hook ERRAND_BAILEY_HIDE); the session is "
                 "bounded only by what its mount namespace holds"));
  CHECK(contains(gaps,
                 "sessions isolated in their own namespaces -- user namespaces cannot be "
                 "used here"));
  CHECK(contains(gaps, "the syscall filter -- seccomp cannot be used here"));
}

TEST_CASE("the hook only removes: unknown names hide nothing and are reported") {
  auto host = full_host();
  hide_features(host, "landlock-bogus,everything");
  CHECK(host.landlock_abi == 7);
  CHECK(host.unknown_hidden == std::vector<std::string>{"landlock-bogus", "everything"});
  const auto r = build_report(host, defaults());
  CHECK(r.gaps.empty());
  CHECK(contains(joined(r.notes), "names an unknown feature \"everything\"; it hid nothing"));
}

TEST_CASE("open egress: port rules need ABI 4, hideHostAddress needs pasta") {
  auto settings = defaults();
  settings.egress = errand::sdk::EgressMode::open;
  settings.egress_ports = {443, 80};
  settings.hide_host_address = true;
  auto host = full_host();
  auto r = build_report(host, settings);
  CHECK(r.gaps.empty());
  CHECK(contains(joined(r.enforced), "wired out by pasta"));
  CHECK(contains(joined(r.enforced),
                 "TCP connections only to ports 443, 80; no TCP port may be listened on "
                 "(sandbox.listenPorts is empty) (Landlock)"));
  CHECK(contains(joined(r.notes), "UDP, QUIC and DNS are not restricted"));

  hide_features(host, "pasta,landlock-net");
  r = build_report(host, settings);
  const auto gaps = gaps_of(r);
  INFO(gaps);
  CHECK(contains(gaps,
                 "outbound TCP held to ports 443, 80; no TCP port may be listened on "
                 "(sandbox.listenPorts is empty) -- this kernel's Landlock ABI (3) has no "
                 "network rules (ABI 4, Linux 6.7), so a session with egress.mode open "
                 "reaches and listens on any port"));
  CHECK(contains(gaps,
                 "the host's address hidden from sessions (sandbox.hideHostAddress) -- "
                 "pasta is unavailable (hidden by the test hook ERRAND_BAILEY_HIDE)"));
  CHECK(contains(gaps, "abstract unix sockets of the host kept out of reach"));
}

TEST_CASE("hideHostAddress with pasta unable to open the tap device is a gap saying so") {
  auto settings = defaults();
  settings.egress = errand::sdk::EgressMode::open;
  settings.hide_host_address = true;
  auto host = full_host();
  host.pasta_path.clear();
  host.pasta_detail = "pasta cannot open /dev/net/tun as uid 999 (Permission denied)";
  const auto gaps = gaps_of(build_report(host, settings));
  INFO(gaps);
  CHECK(contains(gaps,
                 "the host's address hidden from sessions (sandbox.hideHostAddress) -- "
                 "pasta cannot open /dev/net/tun as uid 999 (Permission denied). Without it "
                 "sessions share the host's network namespace"));
}

TEST_CASE("under the broker, hideHostAddress is inert and port rules are not a gap") {
  auto settings = defaults();
  settings.hide_host_address = true;
  auto host = full_host();
  hide_features(host, "landlock-net,pasta");
  const auto r = build_report(host, settings);
  CHECK(r.gaps.empty());
  CHECK(contains(joined(r.notes), "hideHostAddress does nothing under the broker"));
}

TEST_CASE("policyExtra grants and sandbox.env names are listed; writable grants called out") {
  auto settings = defaults();
  settings.extra_read = {"/opt/toolchains", "/var/cache/errand/cargo"};
  settings.extra_write = {"/var/cache/errand/cargo"};
  settings.extra_execute = {"/opt/toolchains/bin"};
  settings.env_extra = {{"CARGO_HOME", "/var/cache/errand/cargo"}, {"SECRETISH", "do-not-show"}};
  const auto r = build_report(full_host(), settings);
  REQUIRE(r.granted.size() == 3);
  CHECK(r.granted[0].path == "/opt/toolchains");
  CHECK(r.granted[0].read);
  CHECK_FALSE(r.granted[0].write);
  CHECK(r.granted[1].path == "/var/cache/errand/cargo");
  CHECK(r.granted[1].read);
  CHECK(r.granted[1].write);
  CHECK(r.granted[2].execute);
  CHECK(r.env_names == std::vector<std::string>{"CARGO_HOME", "SECRETISH"});
  const auto notes = joined(r.notes);
  CHECK(contains(notes, "writable grant: sessions can change /var/cache/errand/cargo"));
  CHECK_FALSE(contains(notes, "do-not-show"));
  for (const auto& e : r.enforced) CHECK_FALSE(contains(e, "do-not-show"));
}

TEST_CASE("sandbox.listenPorts is reported where it acts and called inert where it does not") {
  auto settings = defaults();
  settings.listen_ports = {8080, 5173};
  auto r = build_report(full_host(), settings);
  CHECK(contains(joined(r.enforced), "may listen on and connect to any TCP port of its own"));
  CHECK(contains(joined(r.notes), "sandbox.listenPorts does nothing here"));

  settings.egress = errand::sdk::EgressMode::open;
  r = build_report(full_host(), settings);
  CHECK(contains(joined(r.enforced),
                 "listening only on ports 8080, 5173 (sandbox.listenPorts), which it may also "
                 "connect to (Landlock)"));
  CHECK_FALSE(contains(joined(r.notes), "sandbox.listenPorts does nothing"));
}

TEST_CASE("the syscall and socket lines name the refused families, ENOSYS and core dumps") {
  const auto enforced = joined(build_report(full_host(), defaults()).enforced);
  CHECK(contains(enforced,
                 "sockets: only the unix, IPv4, IPv6 and netlink families; any other (vsock, "
                 "packet, ...) fails with EAFNOSUPPORT (seccomp)"));
  CHECK(contains(enforced, "TIOCSETD"));
  CHECK(contains(enforced, "calls newer than this build answer ENOSYS"));
  CHECK(contains(enforced, "no core dumps"));
}

TEST_CASE("without mount_setattr, read-only below a bind is a gap; with it, enforced") {
  auto host = full_host();
  CHECK(contains(joined(build_report(host, defaults()).enforced),
                 "read-only unless writable, with every mount below it (mount_setattr)"));
  hide_features(host, "mount-setattr");
  const auto r = build_report(host, defaults());
  const auto gaps = gaps_of(r);
  INFO(gaps);
  REQUIRE(r.gaps.size() == 1);
  CHECK(contains(gaps,
                 "read-only binds read-only below too -- mount_setattr failed (hidden by the "
                 "test hook ERRAND_BAILEY_HIDE): a mount below a read-only path"));
  CHECK(contains(gaps, "mount_setattr needs Linux 5.12"));
}
