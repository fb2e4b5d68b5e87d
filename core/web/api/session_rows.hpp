#pragma once

// The sessions page's rows: threads.db's records merged with the session manager's snapshot of
// what runs now, as the web contract's Row. Every text an agent or a person could have put a
// secret into passes the scrubbing door before it reaches the page.

#include "core/sessions/live_sessions.hpp"
#include "core/threads/threads_db.hpp"

#include <boost/json/object.hpp>
#include <errand/sdk/host_services.hpp>
#include <string_view>
#include <vector>

namespace errand::web {

// One Row. Either pointer may be null, not both. The live session wins over the record for the
// state, the model and what it is doing; a live session with no record yet is shown under its
// thread id, or under its session id while its thread is still being opened. A thread with a
// record is as old as the record (started_at is when the thread began, not its newest session).
// An empty model is shown as default_model, the configured one.
boost::json::object session_row(const sessions::ThreadRecord* thread,
                                const sessions::LiveSession* live, const sdk::Secrets& secrets,
                                std::string_view default_model);

// {"sessions": [Row...]}: every thread, and every live session whose thread is not recorded yet,
// newest activity (updated_at) first.
boost::json::object session_list(const std::vector<sessions::ThreadSummary>& threads,
                                 const std::vector<sessions::LiveSession>& live,
                                 const sdk::Secrets& secrets, std::string_view default_model);

}  // namespace errand::web
