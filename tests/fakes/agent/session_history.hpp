#pragma once

// What the fake agent remembers of a session, kept in its state directory ($FAKE_AGENT_STATE_DIR,
// or /state inside a sandbox) so a later agent process can replay it on session/load.

#include <boost/json/object.hpp>
#include <cstdint>
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
// Nothing when the session was never stored. Only the updates in the file's first `bytes` bytes
// when given: what was kept before a point.
std::optional<std::vector<boost::json::object>> read_history(
    const std::filesystem::path& file, std::optional<std::uintmax_t> bytes = std::nullopt);
// How long the file is now; 0 when there is none.
std::uintmax_t history_size(const std::filesystem::path& file);
// The text of every prompt block the updates kept, oldest first.
std::vector<std::string> prompt_texts(const std::vector<boost::json::object>& updates);

}  // namespace fake_agent
