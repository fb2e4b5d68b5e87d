#pragma once

// The daemon's soft limit on open file descriptors, raised to the hard limit at start. Every
// session costs descriptors (its sandbox's pipes, the broker's listener and tunnels, the web
// interface's streams), and the soft limit systemd and most shells hand out is 1024, which a
// few busy sessions would exhaust for all the others, Discord, SQLite and new sandboxes alike.

#include <sys/resource.h>

#include <errand/sdk/result.hpp>
#include <string>

namespace errand::daemon {

struct DescriptorLimit {
  rlim_t before = 0;
  rlim_t now = 0;
};

// Raises the soft RLIMIT_NOFILE to the hard one; the error names the kernel's reason.
sdk::Result<DescriptorLimit> raise_descriptor_limit();

// The start-up line: "open file descriptors: 65536 (raised from 1024)".
std::string describe_descriptor_limit(const DescriptorLimit& limit);

}  // namespace errand::daemon
