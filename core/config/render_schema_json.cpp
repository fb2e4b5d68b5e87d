#include "core/config/pretty_json.hpp"
#include "core/config/reference.hpp"

namespace errand::config {

std::string render_schema_json(const boost::json::object& schema) {
  return pretty_json(schema);
}

}  // namespace errand::config
