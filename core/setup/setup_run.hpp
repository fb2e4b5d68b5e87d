#pragma once

// `errand setup <backend>`: prepares this host for errand with the given sandbox backend.

#include <iosfwd>
#include <string>
#include <vector>

#include "core/setup/host_paths.hpp"

namespace errand::setup {

struct SetupOptions {
  std::string backend;  // a sandbox plugin's name ("bailey", "podman", "incus"), or "agents"
  bool dry_run = false;
  // The flags the core does not take itself: the backend's own (its setup program's options).
  std::vector<std::string> backend_options;
  std::string account = "errand";
  HostPaths host;
};

// Runs the core's steps, then the backend plugin's own (backend_hook_run.hpp), printing one line
// a step to out and the closing summary; returns the exit code: 0 done, 1 a step failed (printed
// to err with what to do), 2 refused before any step (not root, a backend no plugin is found for,
// an option neither the core nor the backend takes).
int run_setup(const SetupOptions& options, std::ostream& out, std::ostream& err);

}  // namespace errand::setup
