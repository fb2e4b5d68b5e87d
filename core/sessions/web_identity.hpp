#pragma once

// Who the web interface is to the session manager: the account its prompts and commands are
// written as (an operator unless the interface is an observer, which writes nothing), and the
// channel its sessions are opened in when no chat service is configured.

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

namespace errand::sessions {

inline constexpr std::string_view kWebInterfaceUser = "web-interface";
inline constexpr std::string_view kWebChannelId = "web";

// web is present and not an observer.
bool web_interface_drives(const boost::json::object& config);
// No chat section: the web interface is the only way in, and its threads are the sessions'.
bool web_interface_only(const boost::json::object& config);
// Where a new session's opening message is written: chat.channelId, or the web interface's
// channel when it is the only way in.
std::string served_channel_id(const boost::json::object& config);

}  // namespace errand::sessions
