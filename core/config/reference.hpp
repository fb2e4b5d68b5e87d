#pragma once

#include <boost/json/object.hpp>
#include <string>

namespace errand::config {

// config.schema.json: pretty-printed with a 2-space indent, keys in the schema's own order, and a
// trailing newline, so the committed file changes only when the schema does.
std::string render_schema_json(const boost::json::object& schema);

// docs/reference/configuration.md: a notice that the file is generated, then one table per
// section (key, type, default, description), secrets marked.
std::string render_reference_markdown(const boost::json::object& schema);

}  // namespace errand::config
