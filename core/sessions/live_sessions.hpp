#pragma once

// What the session manager tells the web interface about the sessions that run now: a snapshot,
// taken on the manager's strand, that the interface merges with threads.db's records.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace errand::sessions {

inline constexpr std::size_t kMaxPartialTextBytes = 16 * 1024;

struct LiveSession {
  enum class State { starting, running, queued, idle, stopping };
  std::string session_id;
  std::string thread_id;  // empty until the session's thread is open
  std::string project;
  std::string owner_id;
  std::string model;  // empty: the configured default
  State state = State::starting;
  std::optional<std::size_t> queue_position;  // 1 is next; only while queued
  std::string doing;  // what the agent does now, in a few words ("running `make`"), or empty
  // The agent's text of the running turn that the transcript does not have yet: it is written
  // there when the agent stops writing (a tool call, the end of the turn). At most the last
  // kMaxPartialTextBytes.
  std::string partial_text;
  std::chrono::system_clock::time_point started_at{};
  // An open permission question under agent.permissions "ask", for the page's buttons.
  struct Option {
    std::string id;
    std::string name;
  };
  std::optional<std::string> question;
  std::vector<Option> question_options;
};

const char* to_string(LiveSession::State state) noexcept;

}  // namespace errand::sessions
