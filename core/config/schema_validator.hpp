#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <vector>

#include "core/config/problem.hpp"

namespace errand::config {

// Checks a value against the JSON Schema subset errand's schema uses and appends every problem,
// never stopping at the first. Keywords: type (a name or a list of names), properties,
// additionalProperties (bool or schema), propertyNames, required, minProperties, enum, minimum,
// maximum, exclusiveMinimum, minLength, pattern, minItems, uniqueItems, items, anyOf and format
// (see formats.hpp). Other keywords are annotations and ignored. A node's "x-errand-hint" sentence
// is appended to the problems reported at that node; a key whose node carries
// "x-errand-unsupported" is refused with that sentence whatever its value.
void validate_against_schema(const boost::json::value& value, const boost::json::object& schema,
                             const std::string& path, std::vector<Problem>& problems);

// "`chat.token`", or "the configuration" for the root.
std::string subject_of(const std::string& path);

// "chat" + "token" -> "chat.token"; "" + "chat" -> "chat".
std::string child_path(const std::string& path, std::string_view key);

}  // namespace errand::config
