#pragma once

// A thread the session manager knows: a live session's, or one threads.db has. Commands and
// prompts in a thread are judged by it (its owner, its guests, its project).

#include "core/sessions/session.hpp"
#include "core/threads/threads_db.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace errand::sessions {

struct KnownThread {
  std::shared_ptr<Session> live;
  std::optional<ThreadRecord> record;

  const std::string& owner_id() const;
  // threads.db's list: the one !allow and !deny edit, so it is current even while a session
  // runs.
  const std::vector<std::string>& guests() const;
  const std::string& project_name() const;
  std::filesystem::path project_dir() const;
};

}  // namespace errand::sessions
