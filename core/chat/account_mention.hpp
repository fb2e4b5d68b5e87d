#pragma once

// An account named in a command: Discord's mention <@id> or <@!id>, or the bare id, which is
// what the web interface (which has no mentions) and a slash command's option give.

#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>

namespace errand::chat {

// The account id, or a refusal saying what was written instead (a role or channel mention,
// text that is no id). An id is a Discord snowflake: decimal digits that fit in 64 bits.
sdk::Result<std::string> account_from_mention(std::string_view text);

// How an account is shown in a message: an id as a mention, which the chat service renders as
// the account's name (without pinging it, as errand's answers list no one to ping), and any
// other account (the web interface's) as itself.
std::string shown_account(std::string_view account_id);

}  // namespace errand::chat
