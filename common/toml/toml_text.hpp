#pragma once

// TOML text for the files errand writes by hand (the bailey policy, the agents' config.toml):
// the layout and comments are errand's, every key and value is formatted by toml++, so what a
// TOML reader reads back is exactly what was meant.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace errand::toml_text {

// A basic string, quotes included, with quotes, backslashes and control characters escaped.
std::string string(std::string_view text);
// A bare key when the name allows one, a quoted key otherwise.
std::string key(std::string_view name);
// One-line arrays: ["a", "b"] and [1, 2].
std::string strings(const std::vector<std::string>& items);
std::string integers(const std::vector<std::int64_t>& items);

}  // namespace errand::toml_text
