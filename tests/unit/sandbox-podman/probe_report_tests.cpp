#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <cerrno>

#include "core/sandbox/policy_from_config.hpp"
#include "plugins/sandbox-podman/impl/host_probe.hpp"
#include "tests/unit/sandbox-podman/recorded_podman_info.hpp"

using namespace errand::podman;
namespace sdk = errand::sdk;

namespace {

// Any name serves: these facts are recorded, not looked up.
constexpr const char* kImage = "localhost/errand-agent:latest";

// The policy the core builds when the configuration leaves every sandbox key out.
sdk::SandboxPolicy defaults() {
  auto p = errand::sandbox::policy_from_config(boost::json::object{});
  REQUIRE(p.has_value());
  return *p;
}

HostFacts host_with(const char* info_json) {
  HostFacts f;
  f.account = "errand";
  auto info = parse_podman_info(info_json);
  REQUIRE(info.has_value());
  f.info = *info;
  f.image.name = kImage;
  f.image.present = true;
  f.image.contract_label = R"({"version":1,"providers":["anthropic"]})";
  f.pasta_path = "/usr/bin/pasta";
  f.landlock_abi = 6;
  // As errand.service delegates it (rootless under v2 only; cgroup_parent.hpp).
  f.cgroup_parent.path = "/system.slice/errand.service";
  return f;
}

std::string gaps_of(const sdk::EnforcementReport& r) {
  std::string out;
  for (const auto& g : r.gaps) out += g.guarantee + " -- " + g.reason + "\n";
  return out;
}

std::string notes_of(const sdk::EnforcementReport& r) {
  std::string out;
  for (const auto& n : r.notes) out += n + "\n";
  return out;
}

bool has_gap(const sdk::EnforcementReport& r, const std::string& guarantee,
             const std::string& reason_part) {
  for (const auto& g : r.gaps)
    if (g.guarantee == guarantee && g.reason.find(reason_part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("the default limits are gaps on rootless cgroup v1, never read as enforced") {
  auto policy = defaults();
  REQUIRE(policy.limits.memory_bytes > 0);
  REQUIRE(policy.limits.pids > 0);
  const auto r = build_probe_report(host_with(recorded::kRootlessCgroupV1), policy);
  INFO(gaps_of(r));
  CHECK(r.backend == "podman");
  CHECK(r.capabilities.agent_in_image);
  CHECK_FALSE(r.capabilities.agent_from_host_install);
  CHECK(has_gap(r, "per-session memory limit", "cgroup v1"));
  CHECK(has_gap(r, "per-session process limit", "cgroup v1"));
  CHECK(has_gap(r, "per-session cpu limit", "cgroup v1") == (policy.limits.cpus > 0));
  CHECK_FALSE(has_gap(r, "every podman guarantee", ""));
  CHECK_FALSE(has_gap(r, "the session image", ""));
  for (const auto& line : r.enforced) CHECK(line.find("limit") == std::string::npos);
}

TEST_CASE("limits that are not configured are not reported as gaps") {
  auto policy = defaults();
  policy.limits.memory_bytes = 0;
  policy.limits.cpus = 0;
  policy.limits.pids = 0;
  const auto r = build_probe_report(host_with(recorded::kRootlessCgroupV1), policy);
  INFO(gaps_of(r));
  CHECK_FALSE(has_gap(r, "per-session memory limit", ""));
  CHECK_FALSE(has_gap(r, "per-session process limit", ""));
  CHECK_FALSE(has_gap(r, "per-session cpu limit", ""));
}

TEST_CASE("rootless on cgroup v2 with a delegated subtree, the limits are no gap") {
  auto policy = defaults();
  policy.limits.cpus = 2;
  const auto r = build_probe_report(host_with(recorded::kRootlessCgroupV2), policy);
  INFO(gaps_of(r));
  CHECK_FALSE(has_gap(r, "per-session memory limit", ""));
  CHECK_FALSE(has_gap(r, "per-session cpu limit", ""));
  CHECK_FALSE(has_gap(r, "per-session process limit", ""));
  CHECK(notes_of(r).find("session containers' cgroups are made under "
                         "/system.slice/errand.service, the subtree delegated to errand") !=
        std::string::npos);
}

TEST_CASE("rootless on cgroup v2 without a delegated subtree, each limit is a gap saying why") {
  auto f = host_with(recorded::kRootlessCgroupV2);
  f.cgroup_parent = {"", {"no cgroup v2 subtree is delegated to this account"}};
  auto policy = defaults();
  policy.limits.cpus = 2;
  const auto r = build_probe_report(f, policy);
  INFO(gaps_of(r));
  for (const char* limit :
       {"per-session memory limit", "per-session cpu limit", "per-session process limit"}) {
    CHECK(has_gap(r, limit, "no cgroup v2 subtree is delegated to this account"));
    CHECK(has_gap(r, limit, "run errand as its systemd unit (Delegate=yes)"));
  }
  CHECK(notes_of(r).find("session containers' cgroups") == std::string::npos);
}

TEST_CASE("rootful on cgroup v2, a controller podman cannot use is a gap") {
  auto f = host_with(recorded::kRootful);
  f.info->cgroup_controllers = {"cpu"};
  const auto r = build_probe_report(f, defaults());
  INFO(gaps_of(r));
  CHECK(has_gap(r, "per-session memory limit", "memory controller is not delegated to errand"));
  CHECK(has_gap(r, "per-session process limit", "pids controller is not delegated"));
}

TEST_CASE("the broker without its relay is a gap; the disk budget is a note of what is measured") {
  auto policy = defaults();
  REQUIRE(policy.uses_broker());
  auto without_relay = host_with(recorded::kRootlessCgroupV2);
  without_relay.relay_problem = "/usr/lib/errand/errand-relay is missing or not executable";
  auto r = build_probe_report(without_relay, policy);
  INFO(gaps_of(r));
  CHECK(has_gap(r, "the egress broker for sessions (egress proxy)", "errand-relay is missing"));
  CHECK(has_gap(r, "errand's syscall filter under the agent", "errand-relay is missing"));
  r = build_probe_report(host_with(recorded::kRootlessCgroupV2), policy);
  INFO(gaps_of(r));
  CHECK_FALSE(has_gap(r, "the egress broker for sessions (egress proxy)", ""));
  policy.network = sdk::NetworkMode::none;
  policy.limits.disk_bytes = 1 << 30;
  r = build_probe_report(host_with(recorded::kRootlessCgroupV2), policy);
  CHECK_FALSE(has_gap(r, "the egress broker for sessions (egress proxy)", ""));
  INFO(gaps_of(r));
  CHECK(r.gaps.empty());
  CHECK(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& note) {
    return note.find(
               "measured, not enforced: a session past 1g or 1000000 files, directories and links "
               "is stopped") != std::string::npos;
  }));
  CHECK(std::none_of(r.enforced.begin(), r.enforced.end(), [](const std::string& line) {
    return line.find("disk") != std::string::npos;
  }));
  policy.limits.disk_bytes = 0;
  policy.limits.disk_inodes = 0;
  r = build_probe_report(host_with(recorded::kRootlessCgroupV2), policy);
  INFO(gaps_of(r));
  CHECK(r.gaps.empty());
}

TEST_CASE("without errand-relay no session has errand's filter, with or without the broker") {
  auto policy = defaults();
  policy.network = sdk::NetworkMode::none;
  REQUIRE_FALSE(policy.uses_broker());
  auto without_relay = host_with(recorded::kRootlessCgroupV2);
  without_relay.relay_problem = "/usr/lib/errand/errand-relay is missing or not executable";
  const auto r = build_probe_report(without_relay, policy);
  INFO(gaps_of(r));
  CHECK(has_gap(r, "errand's syscall filter under the agent", "errand-relay is missing"));
  CHECK_FALSE(has_gap(r, "the egress broker for sessions (egress proxy)", ""));
}

TEST_CASE("rootful podman is refused: sessions run only rootless") {
  const auto r = build_probe_report(host_with(recorded::kRootful), defaults());
  INFO(gaps_of(r));
  CHECK(has_gap(r, "every podman guarantee", "rootful"));
}

TEST_CASE("an account without subordinate ranges is refused with the commands that fix it") {
  const auto r = build_probe_report(host_with(recorded::kRootlessNoSubordinateIds), defaults());
  INFO(gaps_of(r));
  CHECK(has_gap(r, "every podman guarantee", "no subordinate uid or gid range"));
  CHECK(has_gap(r, "every podman guarantee",
                "usermod --add-subuids 1000000-1065535 --add-subgids 1000000-1065535 errand"));
  CHECK(has_gap(r, "every podman guarantee", "podman system migrate"));
  CHECK(notes_of(r).find("uses vfs") != std::string::npos);
}

TEST_CASE("a kernel without Landlock is a gap: errand-relay fences every agent with it") {
  const auto with = build_probe_report(host_with(recorded::kRootlessCgroupV1), defaults());
  INFO(gaps_of(with));
  CHECK(gaps_of(with).find("Landlock") == std::string::npos);
  auto f = host_with(recorded::kRootlessCgroupV1);
  f.landlock_abi = 0;
  f.landlock_error = EOPNOTSUPP;
  const auto r = build_probe_report(f, defaults());
  INFO(gaps_of(r));
  CHECK(has_gap(r, "the agent's Landlock domain, which keeps it out of errand-relay's memory",
                "this kernel offers no Landlock (Operation not supported), so errand-relay "
                "refuses to start the agent"));
}

TEST_CASE("podman that is not installed is one gap naming the packages") {
  HostFacts f;
  f.account = "errand";
  f.image.name = kImage;
  f.info_error = "podman is not installed";
  const auto r = build_probe_report(f, defaults());
  REQUIRE(r.gaps.size() == 1);
  CHECK(r.gaps[0].guarantee == "every podman guarantee");
  CHECK(r.gaps[0].reason.find("apt-get install podman runc uidmap catatonit passt") !=
        std::string::npos);
}

TEST_CASE("a runtime directory that is not the account's is refused with the fix") {
  HostFacts f;
  f.account = "errand";
  f.image.name = kImage;
  f.runtime_dir_problem = "XDG_RUNTIME_DIR /run/user/0 belongs to uid 0, not this account";
  const auto r = build_probe_report(f, defaults());
  INFO(gaps_of(r));
  CHECK(has_gap(r, "every podman guarantee", "belongs to uid 0"));
  CHECK(has_gap(r, "every podman guarantee", "scripts/prepare-podman-account errand"));
}

TEST_CASE("a podman that fails is reported in its own words") {
  HostFacts f;
  f.account = "errand";
  f.image.name = kImage;
  f.info_error = "podman info failed: Error: cannot set up namespace using newuidmap";
  const auto r = build_probe_report(f, defaults());
  CHECK(has_gap(r, "every podman guarantee", "cannot set up namespace using newuidmap"));
}

TEST_CASE("a missing image is refused naming the build that makes it") {
  auto f = host_with(recorded::kRootlessCgroupV1);
  f.image.present = false;
  f.image.contract_label.reset();
  const auto r = build_probe_report(f, defaults());
  INFO(gaps_of(r));
  CHECK(has_gap(r, "the session image",
                "localhost/errand-agent:latest is not in errand's podman store"));
  CHECK(has_gap(r, "the session image", "image/build --account errand"));
}

TEST_CASE("an image without the contract label is refused") {
  auto f = host_with(recorded::kRootlessCgroupV1);
  f.image.contract_label.reset();
  const auto r = build_probe_report(f, defaults());
  INFO(gaps_of(r));
  CHECK(has_gap(r, "the session image", "has no errand.contract label"));
}

TEST_CASE("an image built to another contract version is refused saying which") {
  auto f = host_with(recorded::kRootlessCgroupV1);
  f.image.contract_label = R"({"version":7,"providers":[]})";
  const auto r = build_probe_report(f, defaults());
  INFO(gaps_of(r));
  CHECK(has_gap(r, "the session image", "contract version 7"));
}

TEST_CASE("a good image is described with the providers its kage knows") {
  const auto r = build_probe_report(host_with(recorded::kRootlessCgroupV1), defaults());
  const auto notes = notes_of(r);
  INFO(notes);
  CHECK(notes.find("contract version 1, its kage knows anthropic") != std::string::npos);
  CHECK(notes.find("runtime runc (runc version 1.1.5+ds1") != std::string::npos);
  CHECK(notes.find("cgroup v1 through cgroupfs") != std::string::npos);
}

TEST_CASE("egress open goes through slirp4netns and the report says it reaches any host") {
  auto policy = defaults();
  policy.network = sdk::NetworkMode::restricted;
  policy.egress = sdk::EgressMode::open;
  auto f = host_with(recorded::kRootlessCgroupV1);
  f.slirp4netns_path = "/usr/bin/slirp4netns";
  const auto open = build_probe_report(f, policy);
  CHECK_FALSE(has_gap(open, "a network of its own for each session (egress open)", ""));
  CHECK(notes_of(open).find("reaches any host on any port") != std::string::npos);
  bool loopback_stated = false;
  for (const auto& line : open.enforced)
    loopback_stated =
        loopback_stated || (line.find("allow_host_loopback=false") != std::string::npos &&
                            line.find("/usr/bin/slirp4netns") != std::string::npos);
  CHECK(loopback_stated);

  f.slirp4netns_path.clear();
  const auto without = build_probe_report(f, policy);
  CHECK(has_gap(without, "a network of its own for each session (egress open)",
                "apt-get install slirp4netns"));

  policy.network = sdk::NetworkMode::none;
  const auto with_pasta = build_probe_report(f, policy);
  CHECK_FALSE(has_gap(with_pasta, "a network of its own for each session (egress open)", ""));
  CHECK(notes_of(with_pasta).find("reaches any host") == std::string::npos);
  CHECK(notes_of(with_pasta).find("pasta at /usr/bin/pasta") != std::string::npos);
  f.pasta_path.clear();
  CHECK(notes_of(build_probe_report(f, policy)).find("pasta is not installed") !=
        std::string::npos);
}
