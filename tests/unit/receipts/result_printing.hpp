#pragma once

// Lets Catch print an sdk::Result in a failed check. boost::system::result declares an
// operator<< that only compiles when both sides print, which fools Catch's detection.

#include <catch2/catch_tostring.hpp>

#include <errand/sdk/result.hpp>
#include <string>

namespace Catch {
template <class T>
struct StringMaker<boost::system::result<T, errand::sdk::Error>> {
  static std::string convert(const boost::system::result<T, errand::sdk::Error>& r) {
    return r.has_value() ? std::string("a value") : "an error: " + r.error().message;
  }
};
}  // namespace Catch
