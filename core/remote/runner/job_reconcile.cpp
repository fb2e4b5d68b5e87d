#include "core/remote/runner/job_reconcile.hpp"

#include "core/remote/runner/job_directories.hpp"
#include "core/remote/runner/job_paths.hpp"

namespace errand::remote {

namespace {

std::string lost_job_detail(const JobRecord& record) {
  std::string runner = record.runner_pid
                           ? "the runner (pid " + std::to_string(*record.runner_pid) + ")"
                           : std::string("the runner");
  std::string detail = runner + " stopped while the job ran";
  if (!record.sandbox_id.empty()) detail += "; its sandbox " + record.sandbox_id + " ended with it";
  return detail;
}

}  // namespace

ReconcileReport reconcile_after_restart(sdk::SandboxBackend& backend, JobsDb& jobs,
                                        const std::filesystem::path& runner_state_dir,
                                        JobAdoption* adoption) {
  ReconcileReport report;
  auto running = jobs.running();
  if (!running)
    report.problems.push_back("could not list the running jobs: " + running.error().message);
  const auto state_dir = std::filesystem::absolute(runner_state_dir);
  std::vector<std::size_t> lost;
  for (const auto& record : running ? *running : std::vector<JobRecord>{}) {
    ReconciledJob job;
    job.id = record.id;
    if (adoption != nullptr && adoption->adopt(record)) {
      job.adopted = true;
      job.detail = "adopted, its sandbox " + record.sandbox_id + " still running";
      report.jobs.push_back(std::move(job));
      continue;
    }
    job.detail = lost_job_detail(record);
    if (auto marked = jobs.mark_lost(record.id, job.detail, JobClock::now()); !marked)
      report.problems.push_back("could not mark job " + record.id +
                                " lost: " + marked.error().message);
    const auto removal = remove_job_tree(job_paths(state_dir, record.id));
    job.workspace_removed = removal.removed;
    job.cleanup_detail = removal.detail;
    lost.push_back(report.jobs.size());
    report.jobs.push_back(std::move(job));
  }
  // Whatever of the lost jobs' sandboxes is left (a cgroup, a run directory) is the sweep's.
  report.sweep = backend.sweep_orphans();
  for (const auto index : lost) {
    auto& job = report.jobs[index];
    if (!report.sweep.complete) {
      if (!job.cleanup_detail.empty()) job.cleanup_detail += "; ";
      job.cleanup_detail += "the backend's sweep of leftover sandboxes was incomplete";
    }
    if (auto recorded = jobs.record_cleanup(job.id, job.workspace_removed, report.sweep.complete,
                                            job.cleanup_detail);
        !recorded)
      report.problems.push_back("could not record the cleanup of job " + job.id + ": " +
                                recorded.error().message);
  }
  return report;
}

}  // namespace errand::remote
