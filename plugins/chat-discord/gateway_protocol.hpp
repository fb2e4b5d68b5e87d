#pragma once

// The gateway's payloads and what each close code means for the client, kept apart from the
// connection so they can be checked on their own.

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>

namespace errand::discord {

namespace gateway_op {
inline constexpr int dispatch = 0;
inline constexpr int heartbeat = 1;
inline constexpr int identify = 2;
inline constexpr int resume = 6;
inline constexpr int reconnect = 7;
inline constexpr int invalid_session = 9;
inline constexpr int hello = 10;
inline constexpr int heartbeat_ack = 11;
}  // namespace gateway_op

namespace intents {
inline constexpr std::uint32_t guilds = 1u << 0;
inline constexpr std::uint32_t guild_messages = 1u << 9;
inline constexpr std::uint32_t guild_message_reactions = 1u << 10;
inline constexpr std::uint32_t message_content = 1u << 15;
}  // namespace intents

// What errand asks for: guild and thread events, messages in channels and threads, their
// content (privileged), and reactions.
inline constexpr std::uint32_t kErrandIntents = intents::guilds | intents::guild_messages |
                                                intents::guild_message_reactions |
                                                intents::message_content;

// The close code errand uses when it drops a connection it wants to resume: anything but
// 1000/1001, which would end the session on Discord's side.
inline constexpr std::uint16_t kResumableCloseCode = 4000;

boost::json::object identify_payload(const std::string& token, std::uint32_t intents);
boost::json::object resume_payload(const std::string& token, const std::string& session_id,
                                   std::optional<std::int64_t> seq);
boost::json::object heartbeat_payload(std::optional<std::int64_t> seq);

// What to do after the server closed the connection with a given code.
struct CloseAction {
  enum class Kind { resume, identify, halt } kind = Kind::resume;
  std::string reason;  // for halt: what the operator must do
};
CloseAction action_for_close(std::uint16_t code, const std::string& server_reason);

// The query a gateway connection asks for: the URL's own parameters (percent-encoded, without
// the '?'), then v=10 and encoding=json, which are always errand's.
std::string gateway_query(std::string_view url_query);

}  // namespace errand::discord
