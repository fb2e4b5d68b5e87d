#pragma once

// The threads.db schema and how its rows map to records; shared by the files that implement
// ThreadsDb and used nowhere else.

#include "core/sessions/sqlite_store.hpp"
#include "core/sessions/threads_db.hpp"

#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace errand::sessions::threads_schema {

// Step i brings the schema from version i to i + 1.
std::span<const std::string_view> migrations();

inline constexpr std::string_view kThreadColumns =
    "t.thread_id, t.project_name, t.project_path, t.owner_id, t.guests, t.model, t.created_at, "
    "t.updated_at, t.state, t.last_session_id, t.archived_at";
inline constexpr std::string_view kSessionColumns =
    "session_id, thread_id, backend, started_at, ended_at, end_reason";
inline constexpr std::string_view kTurnColumns =
    "turn_id, message_id, thread_id, session_id, asked_by, received_at, admitted_at, started_at, "
    "ended_at, outcome";

// Times are stored as milliseconds since the Unix epoch, UTC.
TimePoint from_ms(std::int64_t ms);
std::optional<TimePoint> from_ms(const std::optional<std::int64_t>& ms);
std::int64_t to_ms(TimePoint t);

std::string guests_to_json(const std::vector<std::string>& guests);

// Each reads the columns listed above, in that order.
ThreadRecord read_thread(const SqliteStatement& s);
SessionRecord read_session(const SqliteStatement& s);
TurnRecord read_turn(const SqliteStatement& s);

sdk::Error not_found(std::string message);

// Runs one database operation under the connection's lock, turning a store failure into an
// Error value.
template <class F>
auto guarded(std::mutex& mutex, F&& body) -> decltype(body()) {
  std::lock_guard lock(mutex);
  try {
    return body();
  } catch (const SqliteError& e) {
    return sdk::make_error(std::string("threads.db: ") + e.what());
  }
}

}  // namespace errand::sessions::threads_schema
