#pragma once

// The `podman run` a session is started with, built from the launch spec and its policy alone:
// nothing of podman's, the image's or the daemon's environment is inherited. Every variable is
// passed by name (--env NAME), its value in podman's own environment, so no stand-in or token
// is ever on a command line.

#include <sys/resource.h>

#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace errand::podman {

struct RunHost {
  std::string image;
  // False on rootless cgroup v1, where podman would drop --memory, --cpus and --pids-limit with
  // a warning, and on rootless v2 without a delegated subtree, where it would refuse them: the
  // flags are then left out, and the probe reports each as a gap.
  bool limits_apply = false;
  std::filesystem::path seccomp_profile;
  // podman's own hard RLIMIT_NOFILE: rootless podman cannot give a container more.
  rlim_t nofile_hard = 1024;
  // errand.daemon=<...>: which daemon's container this is, so one daemon's orphan sweep never
  // removes another's (two daemons, or a test beside a daemon, on one account).
  std::string daemon_label;
  // errand-relay (static, beside the plugin): every session's first process, which loads
  // errand's own syscall filter before the agent and, under the broker, relays to it.
  std::filesystem::path relay_program;
  // Rootless under v2: --cgroup-parent, the delegated subtree (cgroup_parent.hpp); empty: none.
  std::string cgroup_parent;
};

struct RunPlan {
  std::vector<std::string> args;  // after the podman program
  std::vector<std::pair<std::string, std::string>>
      variables;  // named only: values for podman's environment
};

inline constexpr const char* kSystemLabel = "errand.system=errand";

// The daemon starts a session in two steps, so that podman's own refusals (an image not in the
// store, a mount source that is not there) come back as the launch's error in podman's words
// rather than as the agent's dying words: `podman create` with the plan's options, which ends
// once the container exists, then `podman start --attach --interactive`, whose stdio is the
// container's. The plan's args stay one `podman run`, for callers that run a container through.
std::vector<std::string> podman_create_args(const RunPlan& plan);
std::vector<std::string> podman_start_args(const std::string& session_id);

std::string container_name(const std::string& session_id);

// The errand.daemon label for the daemon whose state directory is state_dir.
std::string daemon_label(const std::filesystem::path& state_dir);

// errand-relay is mounted read-only and started first in every session, so errand's filter is on
// before the agent runs. Under the broker (network restricted, egress proxy) the container still
// has no network: --network=none, the session's broker socket mounted read-only too, and the
// relay listening on 127.0.0.1:3128 with the agent as its child. Egress open gives it a
// slirp4netns network of its own with the host's loopback out of reach.
sdk::Result<RunPlan> podman_run_plan(const sdk::LaunchSpec& spec, const RunHost& host);

}  // namespace errand::podman
