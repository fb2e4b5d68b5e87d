#pragma once

// jobs.db's state as the protocol says it: a lost job is over, like an ended one.

#include "core/remote/jobs/job_record.hpp"
#include "core/remote/wire/messages.hpp"

namespace errand::remote {

inline wire::JobState wire_job_state(JobState state) noexcept {
  switch (state) {
    case JobState::queued: return wire::JobState::queued;
    case JobState::running: return wire::JobState::running;
    case JobState::ended:
    case JobState::lost: break;
  }
  return wire::JobState::ended;
}

}  // namespace errand::remote
