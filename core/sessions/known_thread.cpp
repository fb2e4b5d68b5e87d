#include "core/sessions/known_thread.hpp"

namespace errand::sessions {

const std::string& KnownThread::owner_id() const {
  static const std::string none;
  if (live) return live->owner_id();
  return record ? record->owner_id : none;
}

const std::vector<std::string>& KnownThread::guests() const {
  static const std::vector<std::string> none;
  return record ? record->guests : none;
}

const std::string& KnownThread::project_name() const {
  static const std::string none;
  if (live) return live->project_name();
  return record ? record->project_name : none;
}

std::filesystem::path KnownThread::project_dir() const {
  if (live) return live->project_dir();
  return record ? std::filesystem::path(record->project_path) : std::filesystem::path();
}

}  // namespace errand::sessions
