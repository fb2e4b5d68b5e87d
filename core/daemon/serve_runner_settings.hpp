#pragma once

// The configuration's `runner` block, read for `errand serve`: who may run jobs, how many run
// and wait, how big the blob store may grow, and where the runner's socket is. The runner keeps
// its state in stateDir/runner/ so that it can run beside `errand run` on the same stateDir.

#include "core/remote/serve/job_scheduler.hpp"

#include <boost/json/object.hpp>
#include <filesystem>

namespace errand::daemon {

struct RunnerSettings {
  remote::SchedulerConfig scheduler;  // runner.maxJobs, maxQueued, allowUsers, cacheSize
  std::filesystem::path socket;       // runner.socket, else stateDir/runner.sock
  std::filesystem::path state_dir;    // stateDir/runner: jobs.db, blobs/, jobs/, the lock
};

// Reads an effective (validated, defaults filled) configuration.
RunnerSettings runner_settings_from(const boost::json::object& effective);

}  // namespace errand::daemon
