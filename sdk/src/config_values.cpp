#include <errand/sdk/config_values.hpp>

#include <cctype>
#include <limits>
#include <string>

namespace errand::sdk {

const boost::json::value* find_setting(const boost::json::object& config, std::string_view dotted) {
  const boost::json::object* at = &config;
  while (true) {
    const auto dot = dotted.find('.');
    const auto key = dotted.substr(0, dot);
    const auto it = at->find(key);
    if (it == at->end()) return nullptr;
    if (dot == std::string_view::npos) return &it->value();
    if (!it->value().is_object()) return nullptr;
    at = &it->value().as_object();
    dotted.remove_prefix(dot + 1);
  }
}

Result<std::uint64_t> parse_size(const boost::json::value& v) {
  if (v.is_uint64()) return v.as_uint64();
  if (v.is_int64() && v.as_int64() >= 0) return static_cast<std::uint64_t>(v.as_int64());
  if (!v.is_string()) return make_error("a size is a number of bytes or a string such as \"512m\"");
  const std::string_view s = v.as_string();
  std::size_t i = 0;
  double number = 0;
  bool digits = false, fraction = false;
  double scale = 0.1;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits = true;
      if (fraction) {
        number += (c - '0') * scale;
        scale /= 10;
      } else {
        number = number * 10 + (c - '0');
      }
    } else if (c == '.' && !fraction) {
      fraction = true;
    } else {
      break;
    }
  }
  if (!digits)
    return make_error("\"" + std::string(s) + "\" is not a size; write e.g. \"512m\" or \"4g\"");
  std::string unit;
  for (; i < s.size(); ++i)
    unit.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(s[i]))));
  double multiplier = 0;
  if (unit.empty() || unit == "b")
    multiplier = 1;
  else if (unit == "k" || unit == "kb" || unit == "kib")
    multiplier = 1024.0;
  else if (unit == "m" || unit == "mb" || unit == "mib")
    multiplier = 1024.0 * 1024;
  else if (unit == "g" || unit == "gb" || unit == "gib")
    multiplier = 1024.0 * 1024 * 1024;
  else if (unit == "t" || unit == "tb" || unit == "tib")
    multiplier = 1024.0 * 1024 * 1024 * 1024;
  else
    return make_error("\"" + std::string(s) + "\" has an unknown unit; use k, m, g or t");
  const double bytes = number * multiplier;
  if (bytes >= static_cast<double>(std::numeric_limits<std::uint64_t>::max()))
    return make_error("\"" + std::string(s) + "\" is too large");
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace errand::sdk
