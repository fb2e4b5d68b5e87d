#pragma once

#include <boost/json/value.hpp>
#include <boost/system/result.hpp>
#include <cstddef>
#include <string_view>

#include "core/config/problem.hpp"

namespace errand::config {

struct TextPosition {
  std::size_t line = 1;    // 1-based
  std::size_t column = 1;  // 1-based, in characters
};

// Where a byte offset falls in a text, as an editor numbers it.
TextPosition position_of(std::string_view text, std::size_t offset);

// Parses JSON with // and /* */ comments and trailing commas. A syntax error or a text that ends
// early (a file caught half-written) is a Problem naming the line and column. A leading UTF-8
// byte order mark is skipped.
boost::system::result<boost::json::value, Problem> parse_jsonc(std::string_view text);

}  // namespace errand::config
