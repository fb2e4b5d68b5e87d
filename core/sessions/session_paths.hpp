#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace errand::sessions {

// Where a session lives under stateDir (DESIGN §5): its agent-writable state, its record (never
// visible inside the sandbox) and its broker socket (beside the state, never inside it).
struct SessionPaths {
  std::filesystem::path state;          // stateDir/sessions/<id>, seen as /state
  std::filesystem::path record;         // stateDir/records/<id>
  std::filesystem::path broker_socket;  // stateDir/brokers/<id>.sock

  static SessionPaths of(const std::filesystem::path& state_dir, const std::string& session_id);
};

// The files and directories the given sessions left that exist now.
std::vector<std::filesystem::path> paths_left_by(const std::filesystem::path& state_dir,
                                                 const std::vector<std::string>& session_ids);

}  // namespace errand::sessions
