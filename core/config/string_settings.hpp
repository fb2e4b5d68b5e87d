#pragma once

// Strings (and whole numbers) out of a configuration object. The configuration was validated before
// anything reads it, so a reader only needs to know whether a string is set: absent, or anything
// other than a string, reads as the fallback.

#include <boost/json/object.hpp>
#include <cstdint>
#include <string>
#include <string_view>

namespace errand::config {

// The string at a dotted path ("agent.provider").
std::string string_setting(const boost::json::object& config, std::string_view dotted,
                           std::string_view fallback = {});
// The string member key of one object (a provider definition, a model entry, a schema node).
std::string string_member(const boost::json::object& object, std::string_view key,
                          std::string_view fallback = {});

// The whole number at a dotted path; absent, negative or not a whole number reads as fallback.
std::uint64_t whole_setting(const boost::json::object& config, std::string_view dotted,
                            std::uint64_t fallback);

}  // namespace errand::config
