#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>

namespace errand::config {

// True when a value is of a JSON Schema "type" (a name or a list of names). A whole number
// written with a fraction part (2.0) counts as an integer, as JSON Schema says.
bool matches_type(const boost::json::value& value, const boost::json::value& type);

// "a whole number", "a string or a whole number": how a message names what was expected.
std::string describe_expected(const boost::json::value& type);

// "a string", "2.5", "a list": how a message names what was found.
std::string describe_actual(const boost::json::value& value);

// 2.5 as "2.5" and 2.0 as "2" (Boost.JSON would write "2.5E0").
std::string number_text(double number);

// One anyOf branch as a message names it: its single allowed value, or its type.
std::string describe_branch(const boost::json::object& branch);

}  // namespace errand::config
