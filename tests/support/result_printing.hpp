#pragma once

// Lets Catch print an sdk::Result in a failed assertion: the error's sentence, which is what
// a reader of the test log needs.

#include <boost/system/result.hpp>
#include <catch2/catch_tostring.hpp>
#include <errand/sdk/result.hpp>
#include <string>

namespace Catch {

template <class T>
struct StringMaker<boost::system::result<T, errand::sdk::Error>> {
  static std::string convert(const boost::system::result<T, errand::sdk::Error>& result) {
    return result.has_value() ? std::string("a value") : "error: " + result.error().message;
  }
};

}  // namespace Catch
