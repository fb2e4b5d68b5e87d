#pragma once

// `errand up`: after a boot, brings back what does not survive one (the cgroup subtree on a
// host without systemd, and what the configured backend's setup program brings back: incusd
// where no init system starts it, the podman account's runtime directory) and starts the
// service.

#include <sys/types.h>

#include <iosfwd>
#include <optional>
#include <string>

#include "core/setup/host_paths.hpp"

namespace errand::setup {

struct UpOptions {
  bool dry_run = false;
  // Only make the cgroup subtree (and move join_pid into it): what an OpenRC script calls
  // before it starts the daemon.
  bool cgroup_only = false;
  std::optional<pid_t> join_pid;
  std::string account = "errand";
  HostPaths host;
};

// Exit codes as run_setup's: 0 done, 1 a step failed, 2 refused before any step.
int run_up(const UpOptions& options, std::ostream& out, std::ostream& err);

}  // namespace errand::setup
