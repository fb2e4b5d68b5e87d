#include "core/sessions/session_paths.hpp"

#include <system_error>

namespace errand::sessions {

SessionPaths SessionPaths::of(const std::filesystem::path& state_dir,
                              const std::string& session_id) {
  return {state_dir / "sessions" / session_id, state_dir / "records" / session_id,
          state_dir / "brokers" / (session_id + ".sock")};
}

std::vector<std::filesystem::path> paths_left_by(const std::filesystem::path& state_dir,
                                                 const std::vector<std::string>& session_ids) {
  std::vector<std::filesystem::path> out;
  for (const auto& id : session_ids) {
    // An id comes from threads.db, but it names a path: one that could leave stateDir is
    // never followed.
    if (id.empty() || id.find('/') != std::string::npos || id == "." || id == "..") continue;
    const auto paths = SessionPaths::of(state_dir, id);
    for (const auto& path : {paths.state, paths.record, paths.broker_socket}) {
      std::error_code ec;
      if (std::filesystem::symlink_status(path, ec).type() !=
              std::filesystem::file_type::not_found &&
          !ec) {
        out.push_back(path);
      }
    }
  }
  return out;
}

}  // namespace errand::sessions
