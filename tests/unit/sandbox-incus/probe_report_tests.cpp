#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <filesystem>
#include <map>

#include "tests/support/temp_dir.hpp"
#include "tests/unit/sandbox-incus/incus_test_host.hpp"
#include "tests/unit/sandbox-incus/recorded_incus.hpp"

using namespace errand::incus;
using namespace errand::incus::test;
using Catch::Matchers::ContainsSubstring;
namespace json = boost::json;
namespace sdk = errand::sdk;

namespace {

sdk::EnforcementReport judged(const HostDocuments& d, const IncusSettings& s = seed_settings(),
                              const sdk::SandboxPolicy& p = seed_policy()) {
  return build_probe_report(d, s, p).report;
}

// A requester that must not be reached: the socket check comes first.
IncusRequester unreachable(int& calls) {
  return [&calls](std::string_view, std::string_view, std::optional<json::value>) {
    ++calls;
    return sdk::Result<json::value>(sdk::make_error("asked"));
  };
}

// A unix socket bound at path, where the probe looks for incusd's; the caller closes it.
int bound_socket(const std::filesystem::path& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  return fd;
}

json::object warning_of_type(const char* type, const char* message) {
  auto w = json::parse(recorded::kWarnings).as_array().at(1).as_object();
  w["type"] = type;
  w["last_message"] = message;
  return w;
}

}  // namespace

TEST_CASE("no socket where sandbox.incus.socket points is refused naming the path",
          "[key:sandbox.incus.socket]") {
  errand::test::TempDir dir;
  auto s = seed_settings();
  s.socket = dir.path() / "incus.socket";
  int calls = 0;
  const auto d = gather_host_documents(s, unreachable(calls));
  CHECK(calls == 0);
  const auto r = judged(d, s);
  INFO(gaps_of(r));
  CHECK(has_gap(r, "every incus guarantee", "no incusd socket at " + s.socket.string()));
}

TEST_CASE("a socket the account may not use is refused with the incus-admin command",
          "[key:sandbox.incus.socket]") {
  REQUIRE(::geteuid() != 0);
  errand::test::TempDir dir;
  auto s = seed_settings();
  s.socket = dir.path() / "incus.socket";
  const int fd = bound_socket(s.socket);
  REQUIRE(::chmod(s.socket.c_str(), 0) == 0);
  int calls = 0;
  const auto d = gather_host_documents(s, unreachable(calls));
  ::close(fd);
  CHECK(d.socket.error == EACCES);
  CHECK(calls == 0);
  const auto r = judged(d, s);
  INFO(gaps_of(r));
  CHECK(has_gap(r, "every incus guarantee", "adduser " + d.account + " incus-admin"));
}

TEST_CASE("an incusd without an API extension errand uses is refused naming it") {
  auto d = seed_host();
  auto& extensions = (**d.server).as_object()["api_extensions"].as_array();
  extensions.erase(extensions.end() - 1);  // instance_create_start
  const auto r = judged(d);
  INFO(gaps_of(r));
  CHECK(has_gap(r, "every incus guarantee", "lacks the API extensions instance_create_start"));
}

TEST_CASE("the report names Incus, the kernel, the missing AppArmor and the shared kernel") {
  const auto r = judged(seed_host());
  const auto notes = all_of(r.notes);
  CHECK_THAT(notes, ContainsSubstring("Incus 6.0.4, driver lxc 5.0.2, kernel 6.18.44-fc-v669"));
  CHECK_THAT(notes, ContainsSubstring("the guest shares the host's kernel"));
  CHECK_THAT(notes,
             ContainsSubstring("the guest keeps user namespaces, mounts, clone3 and ptrace"));
  CHECK_THAT(all_of(r.enforced),
             ContainsSubstring("user namespace, seccomp and cgroups; this host has no AppArmor"));
  CHECK_THAT(all_of(r.enforced), ContainsSubstring("errand's system-call rules for a system "
                                                   "container on every process of the guest"));
  auto with_apparmor = seed_host();
  (**with_apparmor.warnings).as_array().erase((**with_apparmor.warnings).as_array().end() - 1);
  CHECK_THAT(all_of(judged(with_apparmor).enforced),
             ContainsSubstring("and Incus's AppArmor profile"));
}

TEST_CASE("a limit incusd warns it cannot apply is a gap; the others are enforced") {
  const auto policy = seed_policy();
  REQUIRE(policy.limits.memory_bytes > 0);
  REQUIRE(policy.limits.pids > 0);
  REQUIRE(policy.limits.cpus > 0);
  const auto clean = judged(seed_host());
  CHECK(clean.gaps.empty());
  CHECK_THAT(all_of(clean.enforced), ContainsSubstring("memory: 4g per session (limits.memory)"));
  CHECK_THAT(all_of(clean.enforced), ContainsSubstring("processes: 512 per session"));
  CHECK_THAT(all_of(clean.enforced), ContainsSubstring("cpu: 2 CPUs per session"));

  const struct {
    const char* type;
    const char* message;
    const char* guarantee;
  } cases[] = {
      {"Couldn't find the CGroup memory controller", "memory limits will be ignored",
       "per-session memory limit"},
      {"Couldn't find the CGroup pids controller", "process limits will be ignored",
       "per-session process limit"},
      {"Couldn't find the CGroup CPU controller", "CPU time limits will be ignored",
       "per-session cpu limit"},
      {"Couldn't find the CGroup CPUset controller", "CPU pinning will be ignored",
       "per-session cpu limit"},
  };
  for (const auto& c : cases) {
    INFO(c.type);
    auto d = seed_host();
    (**d.warnings).as_array().push_back(warning_of_type(c.type, c.message));
    const auto r = judged(d);
    CHECK(has_gap(r, c.guarantee, c.type));
    CHECK(r.gaps.size() == 1);
    auto resolved = seed_host();
    auto w = warning_of_type(c.type, c.message);
    w["status"] = "resolved";
    (**resolved.warnings).as_array().push_back(w);
    CHECK(judged(resolved).gaps.empty());
  }
  auto unlimited = seed_policy();
  unlimited.limits.memory_bytes = 0;
  auto d = seed_host();
  (**d.warnings).as_array().push_back(warning_of_type(cases[0].type, cases[0].message));
  CHECK(judged(d, seed_settings(), unlimited).gaps.empty());
}

TEST_CASE("unreadable warnings leave every configured limit a gap") {
  auto d = seed_host();
  d.warnings = sdk::Result<json::value>(sdk::make_error("incusd answered 500"));
  const auto r = judged(d);
  CHECK(has_gap(r, "per-session memory limit", "incusd answered 500"));
  CHECK(has_gap(r, "per-session process limit", "incusd answered 500"));
  CHECK_THAT(all_of(r.enforced), ContainsSubstring("whether AppArmor adds to that is not known"));
  CHECK_THAT(all_of(r.enforced), !ContainsSubstring("Incus's AppArmor profile"));
}

TEST_CASE("the root size is a gap on a dir pool and a bound on btrfs and ZFS",
          "[key:sandbox.incus.rootSize]") {
  const auto btrfs = judged(seed_host());
  CHECK(btrfs.gaps.empty());
  CHECK_THAT(all_of(btrfs.enforced),
             ContainsSubstring("root disk: 20g per session, a btrfs qgroup on pool default; the "
                               "guest may not make subvolumes"));
  auto zfs = seed_host();
  (**zfs.pool).as_object()["driver"] = "zfs";
  CHECK_THAT(all_of(judged(zfs).enforced),
             ContainsSubstring("root disk: 20g per session, a zfs quota on pool default"));
  auto dir = seed_host();
  (**dir.pool).as_object()["driver"] = "dir";
  const auto r = judged(dir);
  INFO(gaps_of(r));
  CHECK(has_gap(r, "the root disk size (sandbox.incus.rootSize)", "uses the dir driver"));
  CHECK(has_gap(r, "the root disk size (sandbox.incus.rootSize)", "errand setup incus makes one"));
}

TEST_CASE("a root size not above the image's is a gap, since no session's instance could be made",
          "[key:sandbox.incus.rootSize]") {
  auto d = seed_host();
  (**d.image).as_object()["size"] = std::int64_t{3} << 30;  // 3 GiB as imported
  auto s = seed_settings();
  s.root_size_bytes = std::uint64_t{2} << 30;
  const auto r = judged(d, s);
  INFO(gaps_of(r));
  CHECK(has_gap(r, "the root disk size (sandbox.incus.rootSize)",
                "2g is not more than the image errand-agent (3.0 GiB as imported)"));
  CHECK(has_gap(r, "the root disk size (sandbox.incus.rootSize)", "its default is 20g"));
  CHECK_THAT(all_of(r.enforced), !ContainsSubstring("root disk:"));
  // Room above it: enforced as before.
  s.root_size_bytes = std::uint64_t{4} << 30;
  const auto roomy = judged(d, s);
  CHECK(roomy.gaps.empty());
  CHECK_THAT(all_of(roomy.enforced), ContainsSubstring("root disk: 4g per session"));
}

TEST_CASE("a profile without a root disk stops every launch, naming the device to add") {
  auto d = seed_host();
  (**d.profile).as_object()["devices"].as_object().erase("root");
  const auto outcome = build_probe_report(d, seed_settings(), seed_policy());
  CHECK(has_gap(outcome.report, "every incus guarantee",
                "incus profile device add default root disk path=/ pool=default --project errand"));
  CHECK_FALSE(outcome.host.has_value());
}

TEST_CASE("egress open keeps the profile's nic and says the allow-list is not enforced") {
  auto policy = seed_policy();
  policy.egress = sdk::EgressMode::open;
  const auto without = judged(seed_host(), seed_settings(), policy);
  CHECK(has_gap(without, "a network for each session (egress open)",
                "incus profile device add default eth0 nic network=incusbr0 --project errand"));
  auto d = seed_host();
  (**d.profile).as_object()["devices"].as_object()["eth0"] =
      json::object{{"network", "incusbr0"}, {"type", "nic"}};
  const auto outcome = build_probe_report(d, seed_settings(), policy);
  CHECK(outcome.report.gaps.empty());
  CHECK_THAT(all_of(outcome.report.notes),
             ContainsSubstring("sandbox.egress.allow and sandbox.egressPorts are not enforced"));
  REQUIRE(outcome.host.has_value());
  CHECK(outcome.host->nics == std::vector<std::string>{"eth0"});
  // incusbr0 was not among the networks gathered: the guest must configure the nic itself.
  CHECK(outcome.host->addressed.empty());
  CHECK_THAT(all_of(outcome.report.notes),
             ContainsSubstring("the nic eth0 is on the network incusbr0, which incusd would not "
                               "describe, so errand gives it no address"));
  CHECK_THAT(all_of(outcome.report.notes),
             ContainsSubstring("a session whose guest has no default route 30 s after its start "
                               "ends before its agent starts"));
}

TEST_CASE("two nics on one bridge ask incusd to describe the bridge once") {
  errand::test::TempDir dir;
  auto s = seed_settings();
  s.socket = dir.path() / "incus.socket";
  const int fd = bound_socket(s.socket);
  auto profile = json::parse(recorded::kSeedProfile);
  auto& devices = profile.as_object()["devices"].as_object();
  devices["eth0"] = json::object{{"network", "errandtest0"}, {"type", "nic"}};
  devices["eth1"] = json::object{{"network", "errandtest0"}, {"type", "nic"}};
  const std::string profile_text = json::serialize(profile);
  std::map<std::string, int> asked;
  const IncusRequester recorded_host = [&](std::string_view, std::string_view path,
                                           std::optional<json::value>) {
    ++asked[std::string(path)];
    const std::map<std::string, std::string> answers{
        {"/1.0", recorded::kServer},
        {"/1.0/projects/" + s.project, recorded::kSeedProject},
        {"/1.0/profiles/default", profile_text},
        {"/1.0/networks/errandtest0", recorded::kManagedBridge}};
    const auto found = answers.find(std::string(path));
    if (found == answers.end())
      return sdk::Result<json::value>(sdk::make_error("not found", sdk::Error::Kind::not_found));
    return sdk::Result<json::value>(json::parse(found->second));
  };
  const auto d = gather_host_documents(s, recorded_host);
  ::close(fd);
  CHECK(asked["/1.0/profiles/default"] == 1);
  CHECK(asked["/1.0/networks/errandtest0"] == 1);
  REQUIRE(d.networks.size() == 1);
  CHECK(d.networks.front().first == "errandtest0");
}

TEST_CASE("under egress open, a nic on a managed bridge gets an address of errand's; another not") {
  auto policy = seed_policy();
  policy.egress = sdk::EgressMode::open;
  auto d = seed_host();
  auto& devices = (**d.profile).as_object()["devices"].as_object();
  devices["eth0"] = json::object{{"network", "errandtest0"}, {"type", "nic"}};
  devices["eth1"] = json::object{{"network", "eth0"}, {"type", "nic"}};
  d.networks = {{"errandtest0", answer(recorded::kManagedBridge)},
                {"eth0", answer(recorded::kUnmanagedInterface)}};
  const auto outcome = build_probe_report(d, seed_settings(), policy);
  CHECK(outcome.report.gaps.empty());
  REQUIRE(outcome.host.has_value());
  REQUIRE(outcome.host->addressed.size() == 1);
  CHECK(outcome.host->addressed.front().device == "eth0");
  const auto notes = all_of(outcome.report.notes);
  CHECK_THAT(notes, ContainsSubstring("each session's eth0 gets an address of its own on "
                                      "errandtest0 (10.254.214.1/24), routed through the bridge, "
                                      "which also answers DNS"));
  CHECK_THAT(notes, ContainsSubstring("the nic eth1 is on eth0, which is not a managed bridge with "
                                      "an IPv4 subnet, so errand gives it no address"));
  CHECK_THAT(notes, !ContainsSubstring("no default route 30 s"));
  // Without egress open the nics are replaced, and nothing is addressed.
  const auto proxied = build_probe_report(d, seed_settings(), seed_policy());
  REQUIRE(proxied.host.has_value());
  CHECK(proxied.host->addressed.empty());
}

TEST_CASE("/dev/kvm passed by the profile is reported as a wider surface") {
  auto d = seed_host();
  (**d.profile).as_object()["devices"].as_object()["kvm"] =
      json::object{{"path", "/dev/kvm"}, {"type", "unix-char"}};
  CHECK_THAT(all_of(judged(d).notes), ContainsSubstring("passes /dev/kvm"));
  CHECK_THAT(all_of(judged(seed_host()).notes), !ContainsSubstring("/dev/kvm"));
}

TEST_CASE("keys that do nothing under incus are reported as such") {
  auto policy = seed_policy();
  policy.extra_read = {"/opt/tools"};
  policy.path_extra = {"/opt/tools/bin"};
  policy.listen_ports = {8080};
  const auto notes = all_of(judged(seed_host(), seed_settings(), policy).notes);
  CHECK_THAT(notes, ContainsSubstring("sandbox.policyExtra does nothing under incus"));
  CHECK_THAT(notes, ContainsSubstring("sandbox.pathExtra does nothing under incus"));
  CHECK_THAT(notes, ContainsSubstring("sandbox.listenPorts does nothing under incus"));
  CHECK_THAT(all_of(judged(seed_host()).notes), !ContainsSubstring("does nothing"));
}

TEST_CASE("what sessions start from is the image's fingerprint, or the golden's incarnation") {
  auto d = seed_host();
  auto s = seed_settings();
  CHECK(launch_source(d, s) ==
        "image a0749805a86a9025cf295536fdf8bbb12d62ca9faed37f28421b73dde6f5ece6");
  const auto outcome = build_probe_report(d, s, seed_policy());
  REQUIRE(outcome.host.has_value());
  CHECK(outcome.host->source == launch_source(d, s));
  s.golden = "golden";
  d.golden = answer(recorded::kStoppedGolden);
  (**d.golden).as_object()["last_used_at"] = "2026-12-07T12:09:08Z";
  CHECK(launch_source(d, s) ==
        "golden golden 436736e4-53a7-44fd-b5bd-d56e99ea851a 2026-12-07T12:09:08Z");
  // Started since, to change it: another source.
  (**d.golden).as_object()["last_used_at"] = "2026-12-08T09:00:00Z";
  CHECK(launch_source(d, s).ends_with("2026-12-08T09:00:00Z"));
  d.golden.reset();
  CHECK(launch_source(d, s).empty());
}

TEST_CASE("the report says how much kept instances may hold, and when the pool cannot hold it",
          "[key:sandbox.incus.keptTotal]") {
  CHECK(incus_size_bytes("20GiB") == (20ull << 30));
  CHECK(incus_size_bytes("500MB") == 500000000ull);
  CHECK(incus_size_bytes("1073741824") == (1ull << 30));
  CHECK_FALSE(incus_size_bytes("lots").has_value());
  CHECK_FALSE(incus_size_bytes("20 parsecs").has_value());
  auto s = seed_settings();  // keptTotal 40g, on the recorded 20 GiB loop pool
  auto notes = all_of(build_probe_report(seed_host(), s, seed_policy()).report.notes);
  CHECK_THAT(notes, ContainsSubstring("may hold 40g (sandbox.incus.keptTotal), those stopped "
                                      "longest ago deleted first"));
  CHECK_THAT(notes, ContainsSubstring("sandbox.incus.keptTotal (40g) is not less than the pool "
                                      "default (20.0 GiB)"));
  s.kept_total_bytes = 8ull << 30;
  notes = all_of(build_probe_report(seed_host(), s, seed_policy()).report.notes);
  CHECK_THAT(notes, ContainsSubstring("may hold 8g"));
  CHECK_THAT(notes, !ContainsSubstring("is not less than the pool"));
  s.kept_total_bytes = 0;
  notes = all_of(build_probe_report(seed_host(), s, seed_policy()).report.notes);
  CHECK_THAT(notes, ContainsSubstring("keptTotal is 0: every session's instance is deleted"));
}
