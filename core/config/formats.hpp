#pragma once

#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace errand::config {

// Checks a value against one of the "format" names the schema uses: "absolute-path", "size",
// "size-or-share" and "number-or-share" (either form, or a share of the host such as "80%"),
// "hostname-pattern", "env-name", "uri" (an http or https URL with a host) and "url-path".
// Returns what is wrong as the end of a sentence that starts with the key ("must be ..."), or
// nullopt when the value is fine. A format errand does not know is not checked, as JSON Schema
// prescribes.
std::optional<std::string> check_format(std::string_view format, const boost::json::value& value);

// A host name as sandbox.egress.allow takes it: "example.com", "*.example.com", "*", or an
// address literal.
std::optional<std::string> check_host_pattern(std::string_view pattern);

}  // namespace errand::config
