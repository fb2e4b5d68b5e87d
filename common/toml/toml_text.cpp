#include "common/toml/toml_text.hpp"

#include <toml++/toml.h>
#include <sstream>

namespace errand::toml_text {

namespace {

// Basic strings only, UTF-8 kept as written: toml++ would otherwise pick literal or multi-line
// strings by content, and a reader of the policy file should see one form.
constexpr auto kFlags = toml::format_flags::allow_unicode_strings;

std::string formatted(const toml::node& node) {
  std::ostringstream out;
  out << toml::toml_formatter{node, kFlags};
  return out.str();
}

template <class T>
std::string array_of(const std::vector<T>& items) {
  // toml++ pads brackets and may break long arrays over lines; one line reads and greps better.
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + formatted(toml::value<T>{items[i]});
  return out + "]";
}

}  // namespace

std::string string(std::string_view text) {
  return formatted(toml::value<std::string>{std::string(text)});
}

std::string key(std::string_view name) {
  // toml++ chooses between a bare and a quoted key only when it prints a table, so it prints a
  // table of one key and the key is what comes before " = 0".
  constexpr std::string_view value_part = " = 0";
  const auto line = formatted(toml::table{{name, 0}});
  return line.substr(0, line.size() - value_part.size());
}

std::string strings(const std::vector<std::string>& items) {
  return array_of(items);
}

std::string integers(const std::vector<std::int64_t>& items) {
  return array_of(items);
}

}  // namespace errand::toml_text
