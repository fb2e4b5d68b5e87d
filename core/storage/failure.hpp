#pragma once

// The storage layer's one exception. Statements throw it so a body of several statements reads
// straight through; Database::access catches it and hands the caller an sdk::Error, so it never
// leaves core/storage's call frames.

#include <stdexcept>

namespace errand::storage {

class Failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace errand::storage
