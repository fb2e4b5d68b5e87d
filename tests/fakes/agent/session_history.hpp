#pragma once

// What the fake agent remembers of a session, kept in its state directory ($FAKE_AGENT_STATE_DIR,
// or /state inside a sandbox) so a later agent process can replay it on session/load.

#include <boost/json/object.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fake_agent {

struct FakeSession {
  std::string id;
  std::string model;
  std::filesystem::path history;  // empty when there is nowhere to keep it
};

bool is_valid_session_id(const std::string& id);
std::filesystem::path history_path(const std::string& session_id);
void append_history(const std::filesystem::path& file, const boost::json::object& update);
// Nothing when the session was never stored.
std::optional<std::vector<boost::json::object>> read_history(const std::filesystem::path& file);

}  // namespace fake_agent
