#pragma once

// The errors a call reports about what the runner said: a refusal, in its own words and code,
// and a message the protocol does not allow at that point.

#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>

#include "core/remote/wire/messages.hpp"

namespace errand::remote {

// "the runner refused the job (queue-full): MESSAGE", of a kind the CLI may branch on (a full
// queue is a limit, an unknown job is not found, ...). `what` says what was refused ("the
// job", "to attach").
sdk::Error refusal_error(std::string_view what, const wire::Refused& refused);

// "the runner broke the protocol: WHAT".
sdk::Error protocol_breach(std::string_view what);

// A message that may not come `when`: "the runner broke the protocol: it sent \"output\" before
// admitting the job".
sdk::Error unexpected_message(const wire::Message& message, std::string_view when);

// The runner's text as this side prints it: control bytes (which could forge lines or move
// the cursor on the user's terminal) as \xNN; UTF-8 is kept.
std::string printable_text(std::string_view text);

}  // namespace errand::remote
