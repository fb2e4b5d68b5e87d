#pragma once

// Errors crossing a plugin boundary are values, never exceptions.

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>
#include <stdexcept>
#include <string>
#include <utility>

namespace errand::sdk {

// What went wrong, as a sentence an operator can act on, plus a coarse category the caller may
// branch on.
struct Error {
  enum class Kind {
    failed,       // anything not below
    refused,      // the request was understood and deliberately declined
    not_found,    // the thing named does not exist
    unavailable,  // a peer or resource could not be reached; trying later may work
    limit,        // a resource limit or rate limit stopped it
    cancelled,    // stopped on purpose before it finished
  };
  Kind kind = Kind::failed;
  std::string message;
};

inline Error make_error(std::string message, Error::Kind kind = Error::Kind::failed) {
  return Error{kind, std::move(message)};
}

// A request understood and declined on purpose, said as a sentence to whoever made it.
inline Error refusal(std::string sentence) {
  return make_error(std::move(sentence), Error::Kind::refused);
}

// Thrown only by Result::value() on an error, inside one module; never let it cross a boundary.
class ErrorException : public std::runtime_error {
 public:
  explicit ErrorException(const Error& e) : std::runtime_error(e.message), error_(e) {}
  const Error& error() const noexcept { return error_; }

 private:
  Error error_;
};

[[noreturn]] inline void throw_exception_from_error(const Error& e, const boost::source_location&) {
  throw ErrorException(e);
}

template <class T>
using Result = boost::system::result<T, Error>;

}  // namespace errand::sdk
