#include "core/config/host_share.hpp"

#include <charconv>
#include <string>

namespace errand::config {

bool looks_like_share(std::string_view text) {
  return !text.empty() && text.back() == '%';
}

sdk::Result<double> parse_host_share(std::string_view text) {
  const std::string shown = "is \"" + std::string(text) + "\", which";
  if (!looks_like_share(text))
    return sdk::make_error(shown + " is not a share of the host; write one as \"80%\"");
  const auto number = text.substr(0, text.size() - 1);
  // Digits with at most one decimal point: no sign, exponent, spaces or "inf".
  bool digits = !number.empty() && number.front() != '.' && number.back() != '.';
  int points = 0;
  for (const char c : number) {
    if (c == '.')
      ++points;
    else if (c < '0' || c > '9')
      digits = false;
  }
  double percent = 0;
  if (!digits || points > 1 ||
      std::from_chars(number.data(), number.data() + number.size(), percent).ec != std::errc{})
    return sdk::make_error(shown + " is not a share of the host; write a number from 0 to 100 " +
                           "followed by %, such as \"80%\"");
  if (percent <= 0 || percent > 100)
    return sdk::make_error(shown + " is not a share of the host; a share is more than 0% and at " +
                           "most 100%");
  return percent / 100;
}

}  // namespace errand::config
