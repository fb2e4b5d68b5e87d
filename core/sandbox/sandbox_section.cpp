#include "core/sandbox/sandbox_section.hpp"

#include "core/config/core_schema_sections.hpp"
#include "core/config/defaults.hpp"

namespace errand::sandbox {

namespace json = boost::json;

json::object sandbox_with_defaults(const json::object& config) {
  static const json::object schema = config::core_sections::sandbox();
  json::value section = json::object{};
  if (const auto* written = config.if_contains("sandbox"); written && written->is_object())
    section = *written;
  config::fill_schema_defaults(section, schema);
  return json::object{{"sandbox", std::move(section)}};
}

}  // namespace errand::sandbox
