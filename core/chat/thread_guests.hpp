#pragma once

// The guests of a thread: whom its owner let in with !allow and took out with !deny. The chat
// service offers errand no way to ask whether an account exists (sdk::ChatTransport has no
// such call), so an account is refused as unknown when it cannot be one a person holds here:
// an id that is not well formed (account_mention.hpp), errand itself, or an account blocked by
// chat.blockedUserIds; and an edit that would change nothing (the owner, someone already a
// guest, someone who is not one) is refused rather than reported as done.

#include "core/chat/command_access.hpp"

#include <cstddef>
#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace errand::chat {

// Bounds what one thread's row holds; a thread with more people than this wants
// chat.allowedUserIds instead.
inline constexpr std::size_t kMaxGuestsPerThread = 50;

struct GuestEdit {
  enum class Kind { allow, deny };
  Kind kind = Kind::allow;
  std::string_view account_id;  // already parsed from the mention
  std::string_view owner_id;
  std::string_view bot_id;  // errand's own account; empty when the transport has not said
};

// The thread's guests after the edit, in the order they were let in; or a refusal (kind
// refused) saying why nothing changed.
sdk::Result<std::vector<std::string>> edit_guests(const std::vector<std::string>& guests,
                                                  const GuestEdit& edit, const AccessLists& lists);

// The !guests answer.
std::string describe_guests(std::string_view owner_id, const std::vector<std::string>& guests);

}  // namespace errand::chat
