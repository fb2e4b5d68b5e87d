#include "core/chat/thread_guests.hpp"

#include "core/chat/account_mention.hpp"

#include <fmt/format.h>
#include <algorithm>

namespace errand::chat {

sdk::Result<std::vector<std::string>> edit_guests(const std::vector<std::string>& guests,
                                                  const GuestEdit& edit, const AccessLists& lists) {
  const auto who = shown_account(edit.account_id);
  const bool listed = std::find(guests.begin(), guests.end(), edit.account_id) != guests.end();
  if (!edit.bot_id.empty() && edit.account_id == edit.bot_id)
    return sdk::refusal(fmt::format("{} is errand itself, not a person; nothing changed", who));
  if (edit.account_id == edit.owner_id)
    return sdk::refusal(fmt::format(
        "{} owns this thread, which is more than a guest may do; nothing changed", who));
  std::vector<std::string> after = guests;
  if (edit.kind == GuestEdit::Kind::deny) {
    if (!listed)
      return sdk::refusal(fmt::format(
          "{} is not a guest of this thread, so there is nobody to take out; `!guests` lists "
          "them",
          who));
    after.erase(std::remove(after.begin(), after.end(), edit.account_id), after.end());
    return after;
  }
  if (is_blocked(edit.account_id, lists))
    return sdk::refusal(fmt::format(
        "{} is blocked here (chat.blockedUserIds), so they cannot be a guest; ask an operator "
        "if that is a mistake",
        who));
  if (listed) return sdk::refusal(fmt::format("{} is a guest of this thread already", who));
  if (guests.size() >= kMaxGuestsPerThread)
    return sdk::refusal(fmt::format(
        "this thread has {} guests, as many as one thread keeps; `!deny` one first, or ask an "
        "operator to add {} to chat.allowedUserIds",
        kMaxGuestsPerThread, who));
  after.emplace_back(edit.account_id);
  return after;
}

std::string describe_guests(std::string_view owner_id, const std::vector<std::string>& guests) {
  std::string text = fmt::format("owner: {}", shown_account(owner_id));
  if (guests.empty()) return text + "\nno guests; the owner may `!allow @someone` to let them in";
  std::vector<std::string> names;
  names.reserve(guests.size());
  for (const auto& guest : guests) names.push_back(shown_account(guest));
  return text + fmt::format("\nguests ({}): {}", guests.size(), fmt::join(names, ", "));
}

}  // namespace errand::chat
