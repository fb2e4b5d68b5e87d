#include "core/sessions/live_sessions.hpp"

namespace errand::sessions {

const char* to_string(LiveSession::State state) noexcept {
  switch (state) {
    case LiveSession::State::starting: return "starting";
    case LiveSession::State::running: return "running";
    case LiveSession::State::queued: return "queued";
    case LiveSession::State::idle: return "idle";
    case LiveSession::State::stopping: return "stopping";
  }
  return "starting";
}

}  // namespace errand::sessions
