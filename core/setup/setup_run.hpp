#pragma once

// `errand setup <backend>`: prepares this host for errand with the given sandbox backend.

#include <iosfwd>
#include <string>

#include "core/setup/host_paths.hpp"

namespace errand::setup {

struct SetupOptions {
  std::string backend;  // "bailey", "podman" or "incus"
  bool dry_run = false;
  bool golden = false;
  std::string account = "errand";
  HostPaths host;
};

// Runs every step of the backend (bailey's first), printing one line a step to out and the
// closing summary; returns the exit code: 0 done, 1 a step failed (printed to err with what to
// do), 2 refused before any step (not root, unknown backend, --golden without incus).
int run_setup(const SetupOptions& options, std::ostream& out, std::ostream& err);

}  // namespace errand::setup
