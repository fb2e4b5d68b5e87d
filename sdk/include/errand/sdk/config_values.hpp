#pragma once

// Reading the effective configuration the host hands a plugin. The host has already validated
// it and filled in every default, so a missing key here is a bug, reported as an Error.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <string_view>

namespace errand::sdk {

// Finds a dotted path ("sandbox.egress.mode") in a configuration object; nullptr when absent.
const boost::json::value* find_setting(const boost::json::object& config, std::string_view dotted);

// A size as written in the configuration: a whole number of bytes, or a decimal number with a
// suffix k, m, g or t (powers of 1024; "kb", "kib" and an upper-case letter read the same).
Result<std::uint64_t> parse_size(const boost::json::value& v);

}  // namespace errand::sdk
