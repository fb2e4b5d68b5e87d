#pragma once

// What kind of JSON value a peer sent, as a phrase for a refusal: "must be a string, not a
// number".

#include <boost/json/value.hpp>
#include <string_view>

namespace errand::common {

std::string_view json_kind_phrase(const boost::json::value& value) noexcept;

}  // namespace errand::common
