#pragma once

// Just enough TOML writing for the files errand hands an agent: quoted strings and keys.

#include <string>
#include <string_view>

namespace errand::agent {

// A TOML basic string, quotes included, with every control character escaped.
std::string toml_string(std::string_view text);
// A bare key when the name allows one, otherwise a quoted key.
std::string toml_key(std::string_view name);

}  // namespace errand::agent
