#include "plugins/sandbox-incus/impl/probe_report.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "common/human_size.hpp"
#include "plugins/sandbox-incus/impl/project_restrictions.hpp"

namespace errand::incus {

namespace json = boost::json;

std::optional<std::uint64_t> image_bytes(const HostDocuments& d) {
  if (!d.image || !d.image->has_value() || !(**d.image).is_object()) return std::nullopt;
  const auto* size = (**d.image).as_object().if_contains("size");
  if (size == nullptr || !size->is_int64() || size->as_int64() <= 0) return std::nullopt;
  return static_cast<std::uint64_t>(size->as_int64());
}

std::optional<std::uint64_t> incus_size_bytes(std::string_view text) {
  std::uint64_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  const std::string_view unit(end, text.data() + text.size() - end);
  constexpr std::pair<std::string_view, std::uint64_t> units[] = {
      {"", 1},
      {"B", 1},
      {"kB", 1000},
      {"MB", 1000ull * 1000},
      {"GB", 1000ull * 1000 * 1000},
      {"TB", 1000ull * 1000 * 1000 * 1000},
      {"KiB", 1ull << 10},
      {"MiB", 1ull << 20},
      {"GiB", 1ull << 30},
      {"TiB", 1ull << 40}};
  for (const auto& [name, scale] : units)
    if (unit == name) return number * scale;
  return std::nullopt;
}

std::string launch_source(const HostDocuments& d, const IncusSettings& s) {
  if (s.golden) {
    if (!d.golden || !d.golden->has_value()) return {};
    const auto uuid = config_value(**d.golden, "volatile.uuid").value_or("");
    if (uuid.empty()) return {};
    // Started (to change it) since: last_used_at moves.
    return "golden " + *s.golden + " " + uuid + " " + text_at(**d.golden, "last_used_at");
  }
  if (!d.alias || !d.alias->has_value()) return {};
  const auto fingerprint = text_at(**d.alias, "target");
  return fingerprint.empty() ? std::string() : "image " + fingerprint;
}

namespace {

constexpr const char* kEvery = "every incus guarantee";

// The API extensions errand's requests rely on: start on create, exec's user/group/cwd, and
// project restrictions.
constexpr const char* kNeededExtensions[] = {
    "instance_create_start", "container_exec_user_group_cwd", "projects_restrictions"};

bool judge_socket(const HostDocuments& d, sdk::EnforcementReport& r) {
  const auto& s = d.socket;
  if (s.error == 0) return true;
  std::string reason;
  if (s.error == ENOENT)
    reason = "no incusd socket at " + s.path.string() +
             " (sandbox.incus.socket); start incusd (without systemd: "
             "/usr/libexec/incus/incusd --group incus-admin), or point sandbox.incus.socket at "
             "its socket";
  else if (s.error == EACCES || s.error == EPERM)
    reason = "the account " + d.account + " may not use " + s.path.string() +
             ", which only the incus-admin group may; as root: adduser " + d.account +
             " incus-admin, then start errand again from a new login so the group applies";
  else
    reason = "errand cannot use " + s.path.string() + ": " + std::strerror(s.error);
  r.gaps.push_back({kEvery, reason});
  return false;
}

bool judge_server(const HostDocuments& d, sdk::EnforcementReport& r) {
  if (!d.server->has_value()) {
    r.gaps.push_back({kEvery, "incusd at " + d.socket.path.string() +
                                  " did not answer GET /1.0: " + d.server->error().message});
    return false;
  }
  const auto& server = **d.server;
  std::vector<std::string> missing;
  const auto* extensions =
      server.is_object() ? server.as_object().if_contains("api_extensions") : nullptr;
  for (const char* needed : kNeededExtensions)
    if (extensions == nullptr || !extensions->is_array() ||
        std::find(extensions->as_array().begin(), extensions->as_array().end(),
                  json::value(needed)) == extensions->as_array().end())
      missing.emplace_back(needed);
  const auto* env = server.is_object() ? server.as_object().if_contains("environment") : nullptr;
  const json::value none;
  const auto& environment = env != nullptr ? *env : none;
  const auto version = text_at(environment, "server_version");
  r.notes.push_back("Incus " + version + ", driver " + text_at(environment, "driver") + " " +
                    text_at(environment, "driver_version") + ", kernel " +
                    text_at(environment, "kernel_version"));
  if (missing.empty()) return true;
  std::string names;
  for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
  r.gaps.push_back({kEvery, "incusd " + version + " lacks the API extensions " + names +
                                ", which errand's requests use; install Incus 6.0 or later"});
  return false;
}

bool has_warning(const HostDocuments& d, std::string_view type) {
  if (!d.warnings || !d.warnings->has_value() || !(**d.warnings).is_array()) return false;
  for (const auto& w : (**d.warnings).as_array())
    if (text_at(w, "type") == type && text_at(w, "status") != "resolved") return true;
  return false;
}

void describe_confinement(const HostDocuments& d, const IncusSettings& s,
                          sdk::EnforcementReport& r) {
  const bool read = d.warnings && d.warnings->has_value();
  const std::string apparmor =
      !read ? "; incusd's warnings could not be read, so whether AppArmor adds to that is not known"
      : has_warning(d, "AppArmor support has been disabled")
          ? "; this host has no AppArmor, so no AppArmor profile adds to that"
          : " and Incus's AppArmor profile";
  r.enforced.push_back(
      std::string("each session is an unprivileged system container in project ") + s.project +
      ": its root is an unprivileged host id, confined by its user namespace, seccomp and cgroups" +
      apparmor);
  r.notes.push_back(
      "the guest shares the host's kernel, as every container does: a kernel bug reachable from "
      "inside is a way out, which a virtual machine would not give");
  // Said, not left for the operator to infer: the other backends' filter refuses more.
  r.enforced.push_back(
      "errand's system-call rules for a system container on every process of the guest "
      "(security.syscalls.deny, loaded by LXC into its first process and every exec, checked by "
      "errand-guest-init before the agent starts): socket families but unix, IPv4, IPv6 and "
      "netlink, io_uring, bpf, perf_event_open, userfaultfd, modify_ldt, the keyring, "
      "TIOCSTI/TIOCLINUX/TIOCSETD and making btrfs subvolumes refused");
  r.notes.push_back(
      "the guest keeps user namespaces, mounts, clone3 and ptrace, which Docker and podman inside "
      "are made of and bailey's and podman's filter refuses; they act in the guest's own "
      "namespaces (docs/sandbox-incus.md, \"What confines the agent\")");
}

void judge_root_disk(const HostDocuments& d, const IncusSettings& s, const std::string& pool,
                     sdk::EnforcementReport& r) {
  const std::string guarantee = "the root disk size (sandbox.incus.rootSize)";
  const auto size = common::config_size(s.root_size_bytes);
  if (!d.pool || !d.pool->has_value()) {
    r.gaps.push_back(
        {guarantee, "the pool " + pool +
                        " could not be read, so nothing says it "
                        "applies a size: " +
                        (d.pool ? d.pool->error().message : std::string("not asked"))});
    return;
  }
  const auto driver = text_at(**d.pool, "driver");
  // A session's root is a copy of the image, and the quota counts the extents it shares with
  // the image: a size not above the image's leaves no room, and incusd refuses to make the
  // instance at all ("Disk quota exceeded" from btrfs). Said here, by key, before any launch.
  if (const auto image = image_bytes(d); driver != "dir" && image && s.root_size_bytes <= *image) {
    r.gaps.push_back({guarantee, size + " is not more than the image " + s.image + " (" +
                                     common::human_size(*image) +
                                     " as imported), which every session's root counts in full, "
                                     "so incusd could not make a session's instance; give "
                                     "sandbox.incus.rootSize room above it (its default is 20g)"});
    return;
  }
  if (driver == "dir")
    r.gaps.push_back({guarantee, "pool " + pool +
                                     " uses the dir driver, which applies no root size on this "
                                     "filesystem (incusd only logs that it skipped the quota); "
                                     "put the project's root disk on a btrfs pool (errand "
                                     "setup incus makes one on a loop file where the host has "
                                     "no spare disk)"});
  else if (driver == "btrfs")
    r.enforced.push_back("root disk: " + size + " per session, a btrfs qgroup on pool " + pool +
                         "; the guest may not make subvolumes, which the qgroup would not "
                         "count (errand's system-call rules)");
  else
    r.enforced.push_back("root disk: " + size + " per session, a " + driver + " quota on pool " +
                         pool);
}

// What a thread's kept instances may hold (kept_instances.hpp), against the pool they share with
// the running sessions: a total the pool cannot hold would fill it before any is deleted.
void judge_kept_total(const HostDocuments& d, const IncusSettings& s, const std::string& pool,
                      sdk::EnforcementReport& r) {
  if (s.kept_total_bytes == 0) {
    r.notes.push_back(
        "sandbox.incus.keptTotal is 0: every session's instance is deleted when the session ends, "
        "and a thread's next session starts in a new one");
    return;
  }
  const auto total = common::config_size(s.kept_total_bytes);
  r.notes.push_back(
      "a thread's instance is kept, stopped, between its sessions; together they "
      "may hold " +
      total + " (sandbox.incus.keptTotal), those stopped longest ago deleted first");
  const auto pool_size = d.pool && d.pool->has_value()
                             ? incus_size_bytes(config_value(**d.pool, "size").value_or(""))
                             : std::nullopt;
  if (pool_size && s.kept_total_bytes >= *pool_size)
    r.notes.push_back("sandbox.incus.keptTotal (" + total + ") is not less than the pool " + pool +
                      " (" + common::human_size(*pool_size) +
                      "), so stopped instances could fill it before any is deleted and new "
                      "sessions could not be made; set it below the pool's size (half leaves "
                      "room for the running sessions)");
}

// The profile's nics errand addresses (nic_addressing.hpp), with a note for each it leaves to
// the guest.
std::vector<AddressedNic> addressed_nics(const HostDocuments& d, const json::value& devices,
                                         sdk::EnforcementReport& r) {
  std::vector<AddressedNic> out;
  for (const auto& nic : nic_devices(devices)) {
    const auto& device = member(devices, nic);
    const auto network = text_at(device, "network");
    const auto found = std::find_if(d.networks.begin(), d.networks.end(),
                                    [&](const auto& entry) { return entry.first == network; });
    std::optional<AddressedNic> addressed;
    if (found != d.networks.end() && found->second->has_value())
      addressed = addressed_nic(nic, device.as_object(), **found->second);
    if (addressed) {
      out.push_back(std::move(*addressed));
      continue;
    }
    const auto why =
        network.empty() ? "names no managed network (network=)"
        : found == d.networks.end() || !found->second->has_value()
            ? "is on the network " + network + ", which incusd would not describe"
            : "is on " + network + ", which is not a managed bridge with an IPv4 subnet";
    r.notes.push_back("egress open: the nic " + nic + " " + why +
                      ", so errand gives it no address and the guest must configure it itself");
  }
  return out;
}

void judge_network(const IncusSettings& s, const HostDocuments& d, const json::value& devices,
                   const sdk::SandboxPolicy& policy, LaunchHost& host, sdk::EnforcementReport& r) {
  if (policy.network == sdk::NetworkMode::none) {
    r.enforced.push_back(
        "network: none; every nic of the profile is replaced by a none device, so a session has "
        "only its own loopback");
    return;
  }
  if (policy.uses_broker()) {
    r.enforced.push_back(
        "network: no nic; the session's broker socket is mounted read-only at "
        "/errand/broker.sock and errand-guest-init relays 127.0.0.1:3128 inside to it, so every "
        "connection goes through the broker");
    return;
  }
  if (host.nics.empty()) {
    r.gaps.push_back({"a network for each session (egress open)",
                      "the project's default profile has no nic; fix: incus profile device add "
                      "default eth0 nic network=incusbr0 --project " +
                          s.project});
    return;
  }
  host.addressed = addressed_nics(d, devices, r);
  if (host.addressed.empty())
    r.notes.push_back(
        "egress open: errand addresses no nic of the profile, so a session whose guest has no "
        "default route 30 s after its start ends before its agent starts");
  for (const auto& nic : host.addressed)
    r.notes.push_back("egress open: each session's " + nic.interface +
                      " gets an address of its "
                      "own on " +
                      nic.network + " (" + ipv4_text(nic.subnet.gateway) + "/" +
                      std::to_string(nic.subnet.prefix) + "), routed through the bridge" +
                      (nic.nameserver ? ", which also answers DNS" : ""));
  r.notes.push_back("egress open: sessions keep the profile's nic (" + host.nics.front() +
                    ") and reach the network directly; sandbox.egress.allow and "
                    "sandbox.egressPorts are not enforced");
}

void note_inert_keys(const sdk::SandboxPolicy& policy, sdk::EnforcementReport& r) {
  if (!policy.extra_read.empty() || !policy.extra_write.empty() || !policy.extra_execute.empty())
    r.notes.push_back(
        "sandbox.policyExtra does nothing under incus: a session sees the guest's own "
        "filesystem, and no host path but the project and state directories");
  if (!policy.path_extra.empty())
    r.notes.push_back(
        "sandbox.pathExtra does nothing under incus: host directories are not in the guest");
  if (!policy.listen_ports.empty())
    r.notes.push_back(
        "sandbox.listenPorts does nothing under incus: every session has a network namespace "
        "of its own, so no session can reach another's ports anyway");
}

}  // namespace

ProbeOutcome build_probe_report(const HostDocuments& d, const IncusSettings& s,
                                const sdk::SandboxPolicy& policy) {
  ProbeOutcome out;
  auto& r = out.report;
  r.backend = "incus";
  r.summary = "sessions run in unprivileged Incus system containers (systemd inside) in project " +
              s.project + ", " +
              (s.golden ? "each a copy of the instance " + *s.golden : "from the image " + s.image);
  r.capabilities.agent_in_image = true;
  for (const auto& [name, value] : policy.env_extra) r.env_names.push_back(name);
  note_inert_keys(policy, r);
  if (!judge_socket(d, r) || !d.server || !judge_server(d, r)) return out;
  describe_confinement(d, s, r);
  judge_limits(d, policy, r);

  const ProjectNeeds needs{s.project, policy.project_root, policy.state_dir, d.uid, d.gid};
  if (!d.project->has_value()) {
    r.gaps.push_back({"the session project",
                      d.project->error().kind == sdk::Error::Kind::not_found
                          ? "there is no project " + s.project +
                                " (sandbox.incus.project), and errand never creates one; as a "
                                "member of incus-admin: " +
                                project_setup_commands(needs)
                          : "incusd could not look up the project " + s.project + ": " +
                                d.project->error().message});
    return out;
  }
  judge_project(**d.project, needs, r);

  LaunchHost host;
  host.uid = d.uid;
  host.gid = d.gid;
  host.image_bytes = image_bytes(d).value_or(0);
  bool launchable = true;
  if (!d.profile || !d.profile->has_value()) {
    launchable = false;
    r.gaps.push_back({kEvery, "the project's default profile could not be read: " +
                                  (d.profile ? d.profile->error().message : std::string())});
  } else {
    host.pool = root_pool(**d.profile);
    host.nics = nic_devices(member(**d.profile, "devices"));
    if (host.pool.empty()) {
      launchable = false;
      r.gaps.push_back({kEvery,
                        "the project's default profile has no root disk; fix: incus "
                        "profile device add default root disk path=/ pool=default "
                        "--project " +
                            s.project});
    } else {
      judge_root_disk(d, s, host.pool, r);
      judge_kept_total(d, s, host.pool, r);
    }
    judge_network(s, d, member(**d.profile, "devices"), policy, host, r);
    if (passes_kvm(member(**d.profile, "devices")))
      r.notes.push_back(
          "the project's default profile passes /dev/kvm: sessions get hardware "
          "virtualisation, and a KVM bug is a way out of the container");
  }
  out.contract = judge_image_and_golden(d, s, r);
  // A copy keeps the golden's own devices, so a nic of its own must be overridden too.
  if (s.golden && d.golden && d.golden->has_value())
    for (auto& nic : nic_devices(member(**d.golden, "expanded_devices")))
      if (std::find(host.nics.begin(), host.nics.end(), nic) == host.nics.end())
        host.nics.push_back(std::move(nic));
  host.source = launch_source(d, s);
  if (launchable) out.host = std::move(host);
  return out;
}

}  // namespace errand::incus
