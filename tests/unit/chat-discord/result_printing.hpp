#pragma once

// Lets Catch print an sdk::Result in a failed assertion: the error's sentence, which is what a
// reader of a failing test needs.

#include <catch2/catch_tostring.hpp>
#include <errand/sdk/result.hpp>
#include <string>

namespace Catch {

template <class T>
struct StringMaker<boost::system::result<T, errand::sdk::Error>> {
  static std::string convert(const boost::system::result<T, errand::sdk::Error>& r) {
    return r.has_value() ? std::string("a value") : "error: " + r.error().message;
  }
};

}  // namespace Catch
