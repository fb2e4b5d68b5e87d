#pragma once

// What a runner does at its start about the jobs jobs.db says were running: the runner that
// ran them has stopped, so each is adopted where the backend can find its sandbox still
// running, and otherwise marked lost with what is known, its workspace removed and the cleanup
// recorded. Then the backend removes the sandboxes no one owns (sweep_orphans).
//
// bailey adopts nothing: its launcher reads end-of-file on its lifeline pipe when the runner
// that spawned it dies, and kills the sandbox (docs/design.md, "The launcher's lifeline"), so a
// job's sandbox never outlives its runner.

#include <cstdint>
#include <errand/sdk/sandbox_backend.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "core/remote/jobs/job_record.hpp"
#include "core/remote/jobs/jobs_db.hpp"

namespace errand::remote {

// A backend whose sandboxes outlive their runner could take a running job back here. None
// does yet; the runner passes none.
class JobAdoption {
 public:
  virtual ~JobAdoption() = default;
  // True when the job's sandbox (record.sandbox_id) still runs and is from now on this
  // runner's to follow; false leaves the job to be marked lost.
  virtual bool adopt(const JobRecord& record) = 0;
};

struct ReconciledJob {
  std::string id;
  bool adopted = false;
  std::string detail;  // what jobs.db now says of it
  bool workspace_removed = false;
  std::string cleanup_detail;
};

struct ReconcileReport {
  std::vector<ReconciledJob> jobs;
  sdk::SweepReport sweep;
  // Each read or write of jobs.db that failed.
  std::vector<std::string> problems;
};

// Blocks on the file system and jobs.db: call it before the runner takes jobs, not on an
// executor that serves anything else. adoption may be null.
ReconcileReport reconcile_after_restart(sdk::SandboxBackend& backend, JobsDb& jobs,
                                        const std::filesystem::path& runner_state_dir,
                                        JobAdoption* adoption = nullptr);

}  // namespace errand::remote
