#pragma once

#include <boost/json/value.hpp>
#include <string>

namespace errand::config {

// JSON for people to read and for files kept in git: a 2-space indent, keys in the object's own
// order, numbers as the schema writes them, and a trailing newline.
std::string pretty_json(const boost::json::value& value);

}  // namespace errand::config
