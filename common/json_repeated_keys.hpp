#pragma once

// Keys written more than once in one object of a JSON text. A JSON parser keeps only one of
// them, so the other would be dropped without a word; the configuration file and remote-run's
// messages refuse such a text instead, naming the key.

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace errand::common {

struct RepeatedJsonKey {
  // Where the object is: the key or index of each value around it, outermost first.
  std::vector<std::variant<std::string, std::size_t>> parents;
  std::string key;
};

enum class JsonDialect {
  strict,  // RFC 8259
  jsonc,   // comments and trailing commas allowed, a leading byte-order mark skipped
};

// Every repeated key in the order met; {} for a text that does not parse (the caller's own
// parse reports that).
std::vector<RepeatedJsonKey> find_repeated_json_keys(std::string_view text, JsonDialect dialect);

}  // namespace errand::common
