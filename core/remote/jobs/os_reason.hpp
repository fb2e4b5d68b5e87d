#pragma once

// The runner's storage reports a failed system call as part of a sentence naming what it was
// doing; this is the "why" at the end of it.

#include <string>
#include <system_error>

namespace errand::remote::jobs_detail {

// The system's wording for errno value `error` (thread-safe, unlike strerror).
inline std::string os_reason(int error) {
  return std::generic_category().message(error);
}

}  // namespace errand::remote::jobs_detail
