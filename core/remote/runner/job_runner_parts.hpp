#pragma once

// What a runner gives each job it runs: the sandbox backend and how it confines jobs, the
// stores jobs are recorded in, and a pool for the work that blocks on the file system.

#include <boost/asio/thread_pool.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <errand/sdk/sandbox_policy.hpp>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/remote/jobs/blob_store.hpp"
#include "core/remote/jobs/jobs_db.hpp"
#include "core/remote/snapshot/manifest.hpp"

namespace errand::remote {

struct JobRunnerParts {
  sdk::SandboxBackend& backend;
  std::string backend_name;  // recorded in each job's row, e.g. "bailey"
  std::string enforcement;   // the backend's probe summary, recorded in each job's row
  sdk::SandboxPolicy policy;
  // The broker's socket when egress goes through it (the runner runs the broker); the
  // backend refuses to start a sandbox under egress proxy without one.
  std::optional<std::filesystem::path> broker_socket;
  // The runner's own variables for every job (proxy settings, stand-ins); they win over a
  // job's variable of the same name.
  std::vector<std::pair<std::string, std::string>> env;
  JobsDb& jobs;
  BlobStore& blobs;
  std::filesystem::path state_dir;  // the runner's stateDir; jobs live in its jobs/
  boost::asio::thread_pool& blocking;
};

// One admitted job, as the runner runs it.
struct JobRequest {
  std::string id;
  std::vector<std::string> argv;  // the caller's command, looked up on the sandbox's PATH
  std::map<std::string, std::string> env;
  std::string workdir;               // relative to the workspace; empty for the workspace itself
  std::optional<Manifest> manifest;  // none: the job starts in an empty workspace
  bool forward_stdin = false;        // else the job's stdin is at end-of-file from the start
};

}  // namespace errand::remote
