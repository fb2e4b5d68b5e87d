#pragma once

// The threads.db schema and how its rows map to records; shared by the files that implement
// ThreadsDb and used nowhere else.

#include "core/storage/database.hpp"
#include "core/threads/threads_db.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace errand::sessions::threads_schema {

// Every version of the schema, as storage::migrate applies them.
storage::Schema schema();

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
ThreadRecord read_thread(const storage::Statement& s);
SessionRecord read_session(const storage::Statement& s);
TurnRecord read_turn(const storage::Statement& s);

sdk::Error not_found(std::string message);

}  // namespace errand::sessions::threads_schema
