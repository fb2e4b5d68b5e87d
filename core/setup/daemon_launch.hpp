#pragma once

// On a host where no init system manages services, `errand up` starts the daemon itself: the
// same executable, `run`, as the account, in its cgroup subtree, in a session of its own, its
// output appended to <log_dir>/errand.log and its pid in <run_dir>/errand.pid.

#include <sys/types.h>

#include <filesystem>
#include <optional>

#include "core/setup/setup_context.hpp"

namespace errand::setup {

// The pid in the pid file when that process is alive and is an errand, or nothing.
std::optional<pid_t> running_daemon(const std::filesystem::path& pid_file);

void launch_daemon(SetupContext& context);

}  // namespace errand::setup
