#pragma once

// The podman probe in two halves: gather_host_facts asks the real podman and the filesystem
// (blocking), build_probe_report judges what it found against the policy (pure, so recorded
// podman answers can be tested without podman).

#include <errand/sdk/sandbox_backend.hpp>
#include <errand/sdk/sandbox_policy.hpp>
#include <optional>
#include <string>

#include "plugins/sandbox-podman/impl/cgroup_parent.hpp"
#include "plugins/sandbox-podman/impl/podman_command.hpp"
#include "plugins/sandbox-podman/impl/podman_info.hpp"

namespace errand::podman {

struct ImageFacts {
  std::string name;
  bool present = false;
  // The errand.contract label as written; none when the image has no such label.
  std::optional<std::string> contract_label;
  // podman's words when it could not say whether the image is there.
  std::string lookup_error;
};

struct HostFacts {
  std::string account;  // the daemon's account, named in the fixes
  // What is wrong with XDG_RUNTIME_DIR; empty when it is the account's own, mode 0700.
  std::string runtime_dir_problem;
  std::optional<PodmanInfo> info;
  std::string info_error;  // why info is missing: podman absent, or podman's own words
  ImageFacts image;
  std::string pasta_path;  // empty when pasta is not installed
  // Empty when slirp4netns is not installed; egress open needs it (podman 4.3 has no pasta).
  std::string slirp4netns_path;
  // Why errand-relay cannot be used; empty when it can. Every session needs it (it loads
  // errand's syscall filter), and the broker's sessions relay through it.
  std::string relay_problem;
  // The kernel's Landlock ABI, 0 when Landlock cannot be used (landlock_error is then why):
  // errand-relay puts every agent in a Landlock domain of its own and refuses to start one
  // without it.
  int landlock_abi = 0;
  int landlock_error = 0;
  // Rootless under cgroup v2: where session containers' cgroups go (cgroup_parent.hpp); the
  // limits apply only when there is such a place.
  CgroupParent cgroup_parent;
};

HostFacts gather_host_facts(const PodmanEnvironment& env, const std::string& image);

sdk::EnforcementReport build_probe_report(const HostFacts& facts, const sdk::SandboxPolicy& policy);

}  // namespace errand::podman
