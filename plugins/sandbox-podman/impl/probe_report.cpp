#include <cstring>

#include "common/disk_budget/disk_report.hpp"
#include "plugins/sandbox-podman/impl/host_probe.hpp"
#include "plugins/sandbox-podman/impl/image_contract.hpp"

namespace errand::podman {

namespace {

std::string prepare_account_fix(const std::string& account) {
  return "as root, run scripts/prepare-podman-account " + account +
         " from errand's source, which gives the account subordinate ids, a tmpfs runtime "
         "directory at /run/user/<uid> and an overlay image store";
}

std::string join_sentences(const std::vector<std::string>& sentences) {
  std::string out;
  for (const auto& s : sentences) out += (out.empty() ? "" : "; ") + s;
  return out;
}

void judge_account(const HostFacts& f, sdk::EnforcementReport& r) {
  const auto& info = *f.info;
  if (!info.rootless)
    r.gaps.push_back({"every podman guarantee",
                      "podman runs rootful here; sessions run only in rootless podman, as the "
                      "daemon's own ordinary account, so run errand as such an account"});
  if (info.subordinate_uids == 0 || info.subordinate_gids == 0)
    r.gaps.push_back(
        {"every podman guarantee",
         "the account " + f.account +
             " has no subordinate uid or gid range, so podman cannot map the image's users; "
             "as root: usermod --add-subuids 1000000-1065535 --add-subgids 1000000-1065535 " +
             f.account + " (a range no other account has), then as " + f.account +
             ": podman system migrate; or " + prepare_account_fix(f.account)});
  else if (info.subordinate_uids < 65535 || info.subordinate_gids < 65535)
    r.notes.push_back("the account's subordinate ranges hold " +
                      std::to_string(info.subordinate_uids) + " uids and " +
                      std::to_string(info.subordinate_gids) +
                      " gids; an image owning ids above them cannot be used");
}

// Rootless podman on cgroup v1 drops --memory, --cpus and --pids-limit with a warning and starts
// the container anyway, so each configured limit is a gap there rather than a flag that reads as
// enforced. Under v2 it applies them in the cgroup it makes for the container, which as an
// ordinary account it can make only inside a subtree delegated to it: without one, each limit
// is a gap too.
void judge_limits(const HostFacts& f, const sdk::SandboxPolicy& policy, sdk::EnforcementReport& r) {
  const auto& info = *f.info;
  const struct {
    bool configured;
    const char* guarantee;
    const char* controller;
  } limits[] = {{policy.limits.memory_bytes > 0, "per-session memory limit", "memory"},
                {policy.limits.cpus > 0, "per-session cpu limit", "cpu"},
                {policy.limits.pids > 0, "per-session process limit", "pids"}};
  const bool rootless_v2 = info.rootless && info.cgroup_version == "v2";
  bool any_configured = false;
  for (const auto& l : limits) {
    if (!l.configured) continue;
    any_configured = true;
    if (info.cgroup_version == "v1" && info.rootless)
      r.gaps.push_back({l.guarantee,
                        "rootless podman cannot apply cgroup limits on cgroup v1 (this host is "
                        "v1), and drops the flag with a warning; boot with the unified "
                        "hierarchy (cgroup v2) and delegate the memory, cpu and pids "
                        "controllers to " +
                            f.account});
    else if (rootless_v2 && f.cgroup_parent.path.empty())
      r.gaps.push_back({l.guarantee,
                        "rootless podman can only make a container's cgroup in a "
                        "subtree delegated to " +
                            f.account + ", and there is none usable (" +
                            join_sentences(f.cgroup_parent.problems) +
                            "); run errand as its systemd unit (Delegate=yes), or "
                            "start it with `errand up`, which delegates one"});
    else if (!rootless_v2 && !info.has_controller(l.controller))
      r.gaps.push_back({l.guarantee, std::string("the ") + l.controller +
                                         " controller is not delegated to " + f.account +
                                         "; delegate it (systemd: Delegate=yes for the unit)"});
  }
  if (any_configured && rootless_v2 && !f.cgroup_parent.path.empty())
    r.notes.push_back("session containers' cgroups are made under " + f.cgroup_parent.path +
                      ", the subtree delegated to " + f.account +
                      ", with its memory, cpu and pids controllers");
}

void judge_image(const HostFacts& f, sdk::EnforcementReport& r) {
  const auto& image = f.image;
  const std::string build_fix = "build it as root with image/build --account " + f.account +
                                " from errand's source (image/README.md)";
  if (!image.lookup_error.empty()) {
    r.gaps.push_back({"the session image",
                      "podman could not look up " + image.name + ": " + image.lookup_error});
    return;
  }
  if (!image.present) {
    r.gaps.push_back({"the session image", image.name + " is not in " + f.account +
                                               "'s podman store (sessions never pull); " +
                                               build_fix});
    return;
  }
  if (!image.contract_label) {
    r.gaps.push_back(
        {"the session image", image.name +
                                  " has no errand.contract label, so nothing says it has "
                                  "the mount points and tools sessions need; " +
                                  build_fix + ", or add the label to an image of your own"});
    return;
  }
  auto contract = parse_image_contract(*image.contract_label);
  if (!contract) {
    r.gaps.push_back({"the session image", image.name + " cannot be used: " +
                                               contract.error().message + "; " + build_fix});
    return;
  }
  std::string providers;
  for (const auto& p : contract->providers) providers += (providers.empty() ? "" : ", ") + p;
  r.notes.push_back("image " + image.name + ": contract version " +
                    std::to_string(contract->version) + ", its kage knows " +
                    (providers.empty() ? std::string("no providers") : providers));
}

// podman 4.3 (Debian 12's) has no --network=pasta (it came in 4.4), so egress open gives the
// container podman's slirp4netns namespace, with the host's loopback cut off.
void judge_network(const HostFacts& f, const sdk::SandboxPolicy& policy,
                   sdk::EnforcementReport& r) {
  r.notes.push_back(f.pasta_path.empty() ? "pasta is not installed (the passt package)"
                                         : "pasta at " + f.pasta_path);
  if (policy.uses_broker())
    r.notes.push_back(
        "network: none of the container's own; its one way out is errand-relay on "
        "127.0.0.1:3128 to the session's broker socket, mounted read-only");
  if (policy.network != sdk::NetworkMode::restricted || policy.egress != sdk::EgressMode::open)
    return;
  if (f.slirp4netns_path.empty()) {
    r.gaps.push_back({"a network of its own for each session (egress open)",
                      "slirp4netns is not installed, and podman 4.3 has no --network=pasta; as "
                      "root: apt-get install slirp4netns, or set sandbox.network \"none\""});
    return;
  }
  r.enforced.push_back(
      "network: egress open, through slirp4netns (" + f.slirp4netns_path +
      ") with allow_host_loopback=false, so the host's 127.0.0.1 is not reachable from a session");
  r.notes.push_back(
      "egress open: a session reaches any host on any port, TCP and UDP, with no allow-list "
      "(the host's own addresses on its other interfaces included); names resolve through "
      "slirp4netns's resolver");
}

void describe_host(const PodmanInfo& info, sdk::EnforcementReport& r) {
  r.notes.push_back("podman " + info.version + (info.rootless ? " rootless" : " rootful") +
                    ", runtime " + info.runtime_name + " (" + info.runtime_version +
                    "; errand's containers.conf picks runc, since crun 1.8 cannot start "
                    "containers on cgroup v1 hybrid hosts), cgroup " +
                    info.cgroup_version + " through " + info.cgroup_manager + ", events to " +
                    info.event_logger);
  if (info.graph_driver == "vfs")
    r.notes.push_back(
        "the image store uses vfs, which copies the whole image for every container; set "
        "driver = \"overlay\" in ~/.config/containers/storage.conf and run podman system reset");
  if (!info.seccomp_enabled)
    r.notes.push_back("podman reports seccomp as unavailable on this host");
}

}  // namespace

sdk::EnforcementReport build_probe_report(const HostFacts& f, const sdk::SandboxPolicy& policy) {
  sdk::EnforcementReport r;
  r.backend = "podman";
  r.summary = "sessions run in rootless podman containers from the image " + f.image.name;
  r.capabilities.agent_in_image = true;
  for (const auto& [name, value] : policy.env_extra) r.env_names.push_back(name);
  if (!f.info) {
    const std::string reason =
        !f.runtime_dir_problem.empty()
            ? f.runtime_dir_problem + "; " + prepare_account_fix(f.account)
        : f.info_error == "podman is not installed"
            ? std::string(
                  "podman is not installed; as root: apt-get install podman runc uidmap "
                  "catatonit passt (uidmap and catatonit are only recommended by podman, "
                  "and rootless podman needs both)")
            : f.info_error;
    r.gaps.push_back({"every podman guarantee", reason});
    return r;
  }
  describe_host(*f.info, r);
  judge_account(f, r);
  judge_limits(f, policy, r);
  judge_image(f, r);
  judge_network(f, policy, r);
  // errand-relay loads errand's own filter in every session (podman's profile refuses calls by
  // name only), so without it no session runs, whatever the network.
  if (!f.relay_problem.empty()) {
    r.gaps.push_back({"errand's syscall filter under the agent", f.relay_problem});
    if (policy.uses_broker())
      r.gaps.push_back({"the egress broker for sessions (egress proxy)", f.relay_problem});
  }
  // The container shares this kernel, whose Landlock the relay fences the agent in with.
  if (f.landlock_abi == 0)
    r.gaps.push_back({"the agent's Landlock domain, which keeps it out of errand-relay's memory",
                      std::string("this kernel offers no Landlock (") +
                          std::strerror(f.landlock_error) +
                          "), so errand-relay refuses to start the agent; boot a kernel with "
                          "landlock in its lsm= list (Linux 5.13 or newer)"});
  // Measured on the host over the directories the container mounts, as bailey measures it.
  if (auto disk = common::disk_budget_note(policy.limits)) r.notes.push_back(std::move(*disk));
  return r;
}

}  // namespace errand::podman
