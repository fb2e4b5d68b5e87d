#include "core/chat/account_mention.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>

namespace errand::chat {

namespace {

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// Shown back in a refusal without letting a long paste flood the answer.
std::string shown(std::string_view text) {
  constexpr std::size_t kShown = 40;
  return text.size() <= kShown ? std::string(text) : std::string(text.substr(0, kShown)) + "…";
}

}  // namespace

sdk::Result<std::string> account_from_mention(std::string_view text) {
  const auto advice =
      "mention the person (@name) or give their account id, such as "
      "123456789012345678";
  std::string_view id = text;
  if (text.starts_with("<") && text.ends_with(">")) {
    auto inner = text.substr(1, text.size() - 2);
    if (inner.starts_with("@&"))
      return sdk::refusal(
          fmt::format("`{}` mentions a role, not an account; {}", shown(text), advice));
    if (inner.starts_with("#"))
      return sdk::refusal(
          fmt::format("`{}` mentions a channel, not an account; {}", shown(text), advice));
    if (!inner.starts_with("@"))
      return sdk::refusal(
          fmt::format("`{}` is not a mention of an account; {}", shown(text), advice));
    inner.remove_prefix(1);
    if (inner.starts_with("!")) inner.remove_prefix(1);
    id = inner;
  }
  if (!all_digits(id))
    return sdk::refusal(fmt::format("`{}` is not an account; {}", shown(text), advice));
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), value);
  if (ec != std::errc() || end != id.data() + id.size() || value == 0)
    return sdk::refusal(
        fmt::format("`{}` is not an account id: an id is a whole number between 1 and "
                    "18446744073709551615; {}",
                    shown(text), advice));
  // A leading zero would make two spellings of one account.
  if (id.front() == '0')
    return sdk::refusal(fmt::format("`{}` is not an account id: ids have no leading zeros; {}",
                                    shown(text), advice));
  return std::string(id);
}

std::string shown_account(std::string_view account_id) {
  if (account_from_mention(account_id)) return fmt::format("<@{}>", account_id);
  return fmt::format("`{}`", account_id);
}

}  // namespace errand::chat
