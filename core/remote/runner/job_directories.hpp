#pragma once

// Making a job's directories before its sandbox starts, and removing what the job could write
// once it has ended. Both block on the file system: the runner calls them on a worker thread.

#include <errand/sdk/result.hpp>
#include <optional>
#include <string>

#include "core/remote/jobs/blob_store.hpp"
#include "core/remote/runner/job_paths.hpp"
#include "core/remote/snapshot/manifest.hpp"

namespace errand::remote {

// Makes jobs/<id>/ afresh (mode 0700), with state/ and record/, and the workspace: the
// manifest's tree materialised from the store, or an empty directory when there is none. What
// an earlier start of the same job left is removed first: only a job that never ran is
// prepared, so nothing of it is worth keeping.
sdk::Result<MaterialiseStats> prepare_job_directories(const JobPaths& paths,
                                                      const std::optional<Manifest>& manifest,
                                                      BlobStore& blobs);

struct JobTreeRemoval {
  bool removed = false;  // the workspace and state/ are both gone
  std::string detail;    // what stayed, and why, when not
};

// Removes the workspace and state/, also where the job took away its own rights to a
// directory (chmod 000) on its way out. The log and record/ stay.
JobTreeRemoval remove_job_tree(const JobPaths& paths);

}  // namespace errand::remote
