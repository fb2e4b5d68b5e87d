#pragma once

// Small constructors for the nodes of the core schema, so the key table reads as a table.
// Every node carries a "description"; the extension keywords errand adds are:
//   "x-errand-secret": true      the value is a secret: scrubbed from output, blanked in logs
//   "x-errand-hint": "..."       appended to any problem reported at that key (what to do)
//   "x-errand-default-note"      a default that depends on other keys, for the reference page
//   "x-errand-plugin": "name"    the plugin that contributed the key
//   "x-errand-unsupported": "..." the key (or every key of the section) is refused when written:
//                                 nothing reads it yet; the sentence says why and what to do

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <utility>

namespace errand::config::schema_nodes {

boost::json::object text(std::string_view description);
boost::json::object whole_number(std::string_view description, std::int64_t minimum,
                                 std::optional<std::int64_t> maximum = std::nullopt);
boost::json::object flag(std::string_view description);
boost::json::object one_of(std::string_view description,
                           std::initializer_list<std::string_view> values);
boost::json::object absolute_path(std::string_view description);
boost::json::object size(std::string_view description);
boost::json::object list_of(std::string_view description, boost::json::object item);
boost::json::object map_of(std::string_view description, boost::json::object value);
// A closed object: a key not listed is refused.
boost::json::object section(
    std::string_view description,
    std::initializer_list<std::pair<std::string_view, boost::json::object>> properties,
    std::initializer_list<std::string_view> required = {});

boost::json::object defaulted(boost::json::object node, boost::json::value default_value);
boost::json::object secret(boost::json::object node);
boost::json::object hinted(boost::json::object node, std::string_view hint);
// Marks a key nothing reads yet, so that writing it is refused with `reason` rather than
// accepted and ignored; its default goes, since no default of it is in force either.
boost::json::object unsupported(boost::json::object node, std::string_view reason);
boost::json::object with(boost::json::object node, std::string_view keyword,
                         boost::json::value value);

}  // namespace errand::config::schema_nodes
