#pragma once

// Turning gateway payloads into the SDK's events. Pure functions over JSON: where a message
// sits (served channel, thread under it, elsewhere) is decided by the caller.

#include <boost/json/object.hpp>
#include <chrono>
#include <errand/sdk/chat_transport.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::discord {

// When a Discord id (a snowflake) was minted.
std::chrono::system_clock::time_point snowflake_time(std::string_view id);

// The author or invoking user, with the name people see in the server.
sdk::UserRef parse_user(const boost::json::object& user, const boost::json::object* member);

// A MESSAGE_CREATE payload; nullopt when it lacks an id, channel or author. mentions_bot is
// set when the message mentions self_id (in its mentions list or as <@id> / <@!id>).
std::optional<sdk::InboundMessage> parse_message(const boost::json::object& d,
                                                 const std::string& self_id);

// An INTERACTION_CREATE of type 2 (application command); nullopt for other types.
std::optional<sdk::CommandCall> parse_command(const boost::json::object& d);

// A MESSAGE_REACTION_ADD (added) or MESSAGE_REACTION_REMOVE payload. A custom emoji's glyph is
// "name:id"; a Unicode one is the character itself.
sdk::ReactionEvent parse_reaction(const boost::json::object& d, bool added);

// A channel or thread id with the channel it sits under ("" for a top-level channel), as the
// GUILD_CREATE, THREAD_* and channel payloads carry them.
struct ChannelPlace {
  std::string id;
  std::string parent_id;          // a thread's channel, or a channel's category
  bool listed_as_thread = false;  // from the payload's "threads", not its "channels"
};

// Every channel and thread a GUILD_CREATE lists that has an id.
std::vector<ChannelPlace> guild_channels(const boost::json::object& d);

// A string member of an object, or empty.
std::string string_member(const boost::json::object& o, std::string_view key);

}  // namespace errand::discord
