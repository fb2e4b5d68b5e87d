#include "core/chat/command_access.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <errand/sdk/config_values.hpp>

namespace errand::chat {

namespace {

bool listed(std::string_view id, std::span<const std::string> ids) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

std::vector<std::string> id_list(const boost::json::object& config, std::string_view key) {
  std::vector<std::string> ids;
  const auto* v = sdk::find_setting(config, key);
  if (!v || !v->is_array()) return ids;
  for (const auto& item : v->as_array()) {
    if (item.is_string()) ids.emplace_back(item.as_string());
  }
  return ids;
}

}  // namespace

AccessLists access_lists_from_config(const boost::json::object& config) {
  return AccessLists{id_list(config, "chat.operatorUserIds"),
                     id_list(config, "chat.allowedUserIds"), id_list(config, "chat.blockedUserIds"),
                     id_list(config, "shutdown.allowedUserIds")};
}

bool is_operator(std::string_view user_id, const AccessLists& lists) {
  return !user_id.empty() && listed(user_id, lists.operator_ids);
}

bool is_blocked(std::string_view user_id, const AccessLists& lists) {
  return listed(user_id, lists.blocked_ids);
}

sdk::Result<void> check_access(CommandAccess required, const AccessRequest& request,
                               const AccessLists& lists) {
  const auto action = request.action.empty() ? std::string_view("that") : request.action;
  if (request.author_id.empty()) return sdk::refusal("a request without an author is not accepted");
  if (is_blocked(request.author_id, lists)) {
    return sdk::refusal(
        fmt::format("{} was refused: your account is blocked here "
                    "(chat.blockedUserIds); ask an operator if that is a mistake",
                    action));
  }
  const bool op = is_operator(request.author_id, lists);
  const bool owner = !request.owner_id.empty() && request.author_id == request.owner_id;
  const bool guest = !request.owner_id.empty() && listed(request.author_id, request.guests);
  const bool allowed = op || owner || guest || listed("*", lists.allowed_ids) ||
                       listed(request.author_id, lists.allowed_ids);
  switch (required) {
    case CommandAccess::anyone: return {};
    case CommandAccess::allowed:
      if (allowed) return {};
      return sdk::refusal(
          fmt::format("{} was refused: your account is not in chat.allowedUserIds{}; ask "
                      "an operator to add it{}",
                      action, request.owner_id.empty() ? "" : " nor a guest of this thread",
                      request.owner_id.empty() ? "" : ", or the thread's owner to `!allow` you"));
    case CommandAccess::owner:
      if (op || owner) return {};
      return sdk::refusal(fmt::format(
          "{} was refused: only {} or an operator may do that{}; ask them", action,
          request.owner_id.empty() ? std::string("the owner of a session")
                                   : std::string("the person who started this session"),
          guest ? " (a guest may prompt and read the project, not steer the session)" : ""));
    case CommandAccess::operators:
      if (op) return {};
      return sdk::refusal(
          fmt::format("{} was refused: only operators (chat.operatorUserIds) may do that", action));
    case CommandAccess::shutdown:
      if (listed(request.author_id, lists.shutdown_ids)) return {};
      return sdk::refusal(
          fmt::format("{} was refused: only the accounts in shutdown.allowedUserIds may stop "
                      "the daemon; ask one of them, or stop it through its service manager",
                      action));
  }
  return sdk::refusal(fmt::format("{} was refused", action));
}

}  // namespace errand::chat
