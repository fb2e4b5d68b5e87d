#include "plugins/sandbox-bailey/impl/enforcement_report.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/disk_budget/disk_report.hpp"
#include "common/human_size.hpp"
#include "common/landlock/landlock_abi.hpp"
#include "common/seccomp/seccomp_filter.hpp"
#include "common/syscall_denylist/syscall_denylist.hpp"

namespace errand::bailey {

namespace {

std::string ports_text(const std::vector<std::uint16_t>& ports) {
  std::string out;
  for (const auto p : ports) out += (out.empty() ? "" : ", ") + std::to_string(p);
  return out;
}

std::string cpus_text(double cpus) {
  std::ostringstream out;
  out << cpus;
  return out.str();
}

bool direct_network(const sdk::SandboxPolicy& s) {
  return s.network != sdk::NetworkMode::none &&
         (s.network == sdk::NetworkMode::open || s.egress == sdk::EgressMode::open);
}

void add_network(sdk::EnforcementReport& r, const HostFeatures& host, const sdk::SandboxPolicy& s) {
  const bool net_rules = host.landlock_abi >= 4;
  if (!direct_network(s)) {
    r.enforced.push_back(
        s.network == sdk::NetworkMode::none
            ? "network: an empty network namespace; nothing can be reached, and the session may "
              "listen on any TCP port of its own loopback"
            : "network: a private namespace whose one way out is a relay on 127.0.0.1:3128 to "
              "the session's broker socket; the host's loopback, its addresses, UDP and DNS are "
              "unreachable, and the session may listen on and connect to any TCP port of its "
              "own loopback");
    if (!s.listen_ports.empty())
      r.notes.push_back(
          "sandbox.listenPorts does nothing here: in its own network namespace a session may "
          "listen on any port, and nothing outside can reach it");
    if (s.hide_host_address && s.network != sdk::NetworkMode::none)
      r.notes.push_back(
          "sandbox.hideHostAddress does nothing under the broker: the session's "
          "namespace already hides the host's address");
    return;
  }
  const bool hidden = s.hide_host_address && !host.pasta_path.empty();
  const std::string listening =
      s.listen_ports.empty() ? "no TCP port may be listened on (sandbox.listenPorts is empty)"
                             : "listening only on ports " + ports_text(s.listen_ports) +
                                   " (sandbox.listenPorts), which it may also connect to";
  if (net_rules) {
    r.enforced.push_back(std::string("network: ") +
                         (hidden ? "a private namespace wired out by pasta (synthetic address "
                                   "and MAC); "
                                 : "the host's network; ") +
                         "TCP connections only to ports " + ports_text(s.egress_ports) + "; " +
                         listening + " (Landlock)");
  } else {
    r.gaps.push_back({"outbound TCP held to ports " + ports_text(s.egress_ports) + "; " + listening,
                      "this kernel's Landlock ABI (" + std::to_string(host.landlock_abi) +
                          ") has no network rules (ABI 4, Linux 6.7), so a session with "
                          "egress.mode open reaches and listens on any port"});
  }
  r.notes.push_back(
      "egress.mode open: no broker; sandbox.egress.allow does nothing, and UDP, "
      "QUIC and DNS are not restricted by port");
  if (s.hide_host_address && host.pasta_path.empty())
    r.gaps.push_back(
        {"the host's address hidden from sessions (sandbox.hideHostAddress)",
         (host.pasta_detail.empty() ? std::string("pasta is not installed; install the passt "
                                                  "package")
                                    : host.pasta_detail) +
             ". Without it sessions share the host's network namespace and can read its "
             "address, MAC and neighbours"});
  if (!hidden && host.landlock_abi < 6)
    r.gaps.push_back({"abstract unix sockets of the host kept out of reach",
                      "the session shares the host's network namespace and this kernel's "
                      "Landlock ABI (" +
                          std::to_string(host.landlock_abi) +
                          ") cannot scope abstract sockets (ABI 6, Linux 6.12)"});
}

void add_limits(sdk::EnforcementReport& r, const HostFeatures& host, const sdk::SandboxPolicy& s) {
  const auto& cg = host.cgroup;
  const char* kind = cg.kind == cgroups::Kind::v2 ? "cgroup v2" : "cgroup v1";
  std::vector<std::string> missing;
  auto one = [&](bool wanted, const std::string& dir, const std::string& what) {
    if (!wanted) return;
    if (!dir.empty())
      r.enforced.push_back("limit: " + what + " per session (" + kind + ")");
    else
      missing.push_back(what);
  };
  one(s.limits.memory_bytes > 0, cg.memory, "memory " + common::config_size(s.limits.memory_bytes));
  one(s.limits.cpus > 0, cg.cpu, cpus_text(s.limits.cpus) + " cpus");
  one(s.limits.pids > 0, cg.pids, std::to_string(s.limits.pids) + " processes");
  if (!missing.empty()) {
    std::string what = "per-session ";
    for (std::size_t i = 0; i < missing.size(); ++i)
      what += (i == 0 ? "" : i + 1 == missing.size() ? " and " : ", ") + missing[i];
    std::string why = cg.kind == cgroups::Kind::none
                          ? "this host reports no cgroup delegation"
                          : "this host's cgroup delegation does not cover them";
    for (const auto& p : cg.problems) why += "; " + p;
    why +=
        ". The service's own limits still hold, but over the daemon and every session "
        "together. A service gets a delegated cgroup from its manager (systemd's Delegate=yes, "
        "which the unit errand setup installs has; BAILEY_CGROUP_ROOT names it under cgroup "
        "v2). For errand run from a shell: on a systemd host, `systemd-run --user --scope -p "
        "Delegate=yes errand run` runs it in a cgroup of this account's, which it divides for "
        "the sessions; on a host without systemd, `sudo errand up --cgroup-only --account "
        "\"$(id -un)\" --join $$` gives this account a cgroup subtree and moves the shell into "
        "it: run errand again from that shell";
    r.gaps.push_back({what + " limits are not applied", why});
  }
}

}  // namespace

sdk::EnforcementReport unprobed_report() {
  sdk::EnforcementReport r;
  r.backend = "bailey";
  // The agent is the host's own install; with pasta a session that shares the host's network
  // still sees a synthetic address.
  r.capabilities.agent_from_host_install = true;
  r.capabilities.hides_host_address = true;
  return r;
}

sdk::EnforcementReport build_report(const HostFeatures& host, const sdk::SandboxPolicy& s) {
  auto r = unprobed_report();
  r.summary = "sessions run as confined host processes using the host's own tools";

  if (host.userns) {
    r.enforced.push_back(
        "namespaces: user (root inside is the daemon's uid, no capabilities), "
        "mount, PID, UTS, IPC" +
        std::string(direct_network(s) && !(s.hide_host_address && !host.pasta_path.empty())
                        ? ""
                        : " and network"));
    r.enforced.push_back(
        "filesystem: a new root holding only the system directories, the "
        "project at /workspace and the state at /state; the daemon's files, "
        "its home and other sessions are not in it");
    if (host.recursive_mount_flags)
      r.enforced.push_back(
          "filesystem: every bind is nosuid and nodev, and read-only unless writable, with "
          "every mount below it (mount_setattr)");
    else
      r.gaps.push_back(
          {"read-only binds read-only below too",
           host.recursive_mount_flags_detail +
               ": a mount below a read-only path (under /usr or a policyExtra.read grant) stays "
               "writable inside, and only the top of each bind is nosuid and nodev; "
               "mount_setattr needs Linux 5.12"});
  } else {
    r.gaps.push_back({"sessions isolated in their own namespaces",
                      "user namespaces cannot be used here (" + host.userns_detail +
                          "); bailey cannot start a session at all on this host"});
  }

  if (host.landlock_abi > 0) {
    r.enforced.push_back("filesystem: Landlock ABI " + std::to_string(host.landlock_abi) +
                         " grants read, write and execute by path after the pivot");
    if (host.landlock_abi >= 6)
      r.enforced.push_back(
          "scoping: abstract unix sockets and signals stay inside the session "
          "(Landlock)");
    if (host.landlock_abi > landlock::kNewestKnownAbi)
      r.notes.push_back("the kernel's Landlock ABI " + std::to_string(host.landlock_abi) +
                        " is newer than this build knows (" +
                        std::to_string(landlock::kNewestKnownAbi) +
                        "); rights added after it are not handled");
    for (const auto& line : landlock::unenforced_by(host.landlock_abi))
      r.notes.push_back("Landlock: " + line);
  } else {
    r.gaps.push_back({"filesystem access held to the policy by Landlock",
                      host.landlock_detail +
                          "; the session is bounded only by what its mount namespace holds, and "
                          "TCP ports are not restricted"});
  }

  if (host.seccomp) {
    r.enforced.push_back("syscalls: seccomp refuses " +
                         std::to_string(sandbox_rules::denied_syscall_names().size()) +
                         " calls (tracing, keyrings, kernel modules, bpf, mounts, namespaces, "
                         "io_uring, modify_ldt, vmsplice, quotas, file handles, ...), namespace "
                         "clones, TIOCSTI, TIOCLINUX, TIOCSETD and unsafe personalities; calls "
                         "newer than this build answer ENOSYS; foreign architectures are killed");
    r.enforced.push_back(
        "sockets: only the unix, IPv4, IPv6 and netlink families; any other (vsock, packet, "
        "...) fails with EAFNOSUPPORT (seccomp)");
  } else {
    r.gaps.push_back(
        {"the syscall filter", "seccomp cannot be used here (" + host.seccomp_detail +
                                   "); bailey cannot start a session at all on this host"});
  }

  add_network(r, host, s);
  add_limits(r, host, s);
  r.enforced.push_back("no new privileges; no core dumps; the sandbox dies with the daemon");

  if (s.limits.file_max_bytes > 0)
    r.notes.push_back("no single file may exceed " + common::config_size(s.limits.file_max_bytes) +
                      ", enforced as an rlimit");
  if (auto disk = common::disk_budget_note(s.limits)) r.notes.push_back(std::move(*disk));
  for (const auto& h : host.unknown_hidden)
    r.notes.push_back(std::string(kHideVariable) + " names an unknown feature \"" + h +
                      "\"; it hid nothing");
  if (!host.hidden.empty()) {
    std::string names;
    for (const auto& h : host.hidden) names += (names.empty() ? "" : ", ") + h;
    r.notes.push_back(std::string("the test hook ") + kHideVariable + " removed " + names +
                      " from this report");
  }

  auto grant = [&](const std::filesystem::path& path) -> sdk::GrantedPath& {
    for (auto& g : r.granted)
      if (g.path == path) return g;
    r.granted.push_back({path, false, false, false});
    return r.granted.back();
  };
  for (const auto& p : s.extra_read) grant(p).read = true;
  for (const auto& p : s.extra_write) grant(p).write = true;
  for (const auto& p : s.extra_execute) grant(p).execute = true;
  for (const auto& g : r.granted)
    if (g.write)
      r.notes.push_back("writable grant: sessions can change " + g.path.string() +
                        ", outside their own project (sandbox.policyExtra.write)");
  for (const auto& [name, value] : s.env_extra) r.env_names.push_back(name);
  return r;
}

}  // namespace errand::bailey
