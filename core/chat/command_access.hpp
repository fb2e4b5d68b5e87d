#pragma once

// Who may do what. Blocked accounts are refused before anything else; operators may do
// everything else but stop the daemon; the owner of a thread is who started its session, and
// its guests are whom the owner let in (!allow): they may prompt and read the project there as
// allowed users do, and no more.

#include "core/chat/commands.hpp"

#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace errand::chat {

struct AccessLists {
  std::vector<std::string> operator_ids;       // chat.operatorUserIds
  std::vector<std::string> allowed_ids;        // chat.allowedUserIds; "*" admits every account
  std::vector<std::string> blocked_ids;        // chat.blockedUserIds
  std::vector<std::string> shutdown_ids = {};  // shutdown.allowedUserIds
};

// Reads chat.operatorUserIds, chat.allowedUserIds, chat.blockedUserIds and
// shutdown.allowedUserIds.
AccessLists access_lists_from_config(const boost::json::object& config);

struct AccessRequest {
  std::string_view author_id;
  std::string_view owner_id;  // empty in the channel, where no session is anyone's
  std::string_view action;    // what is asked, for the sentence: "!stop", "a prompt"
  // The thread's guests; none in the channel.
  std::span<const std::string> guests = {};
};

// Success, or an Error of kind refused whose message is the sentence to answer with.
sdk::Result<void> check_access(CommandAccess required, const AccessRequest& request,
                               const AccessLists& lists);

bool is_operator(std::string_view user_id, const AccessLists& lists);
bool is_blocked(std::string_view user_id, const AccessLists& lists);

}  // namespace errand::chat
