#include "core/remote/jobs/job_record.hpp"

namespace errand::remote {

std::string_view to_string(JobState state) noexcept {
  switch (state) {
    case JobState::queued: return "queued";
    case JobState::running: return "running";
    case JobState::ended: return "ended";
    case JobState::lost: return "lost";
  }
  return "unknown";
}

std::optional<JobState> job_state_named(std::string_view text) noexcept {
  for (const auto state : {JobState::queued, JobState::running, JobState::ended, JobState::lost})
    if (text == to_string(state)) return state;
  return std::nullopt;
}

}  // namespace errand::remote
