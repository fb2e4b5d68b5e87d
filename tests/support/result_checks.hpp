#pragma once

#include <catch2/catch_message.hpp>

namespace errand::test {

// For REQUIRE(ok(result)): Catch cannot print a Result, so a failure reports the error's own
// sentence instead.
template <class Result>
bool ok(const Result& result) {
  if (!result) UNSCOPED_INFO("error: " << result.error().message);
  return result.has_value();
}

}  // namespace errand::test
