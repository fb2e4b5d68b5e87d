#include "core/config/duplicate_keys.hpp"

#include "common/json_repeated_keys.hpp"
#include "core/config/schema_validator.hpp"

namespace errand::config {

std::vector<std::string> find_duplicate_keys(std::string_view text) {
  std::vector<std::string> paths;
  for (const auto& repeated : common::find_repeated_json_keys(text, common::JsonDialect::jsonc)) {
    std::string path;
    for (const auto& step : repeated.parents) {
      if (const auto* key = std::get_if<std::string>(&step))
        path = child_path(path, *key);
      else
        path += "[" + std::to_string(std::get<std::size_t>(step)) + "]";
    }
    paths.push_back(child_path(path, repeated.key));
  }
  return paths;
}

}  // namespace errand::config
