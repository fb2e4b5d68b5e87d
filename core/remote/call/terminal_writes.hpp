#pragma once

// Writing to the terminal's descriptors (the job's output, the call's notes on stderr). They are
// the user's and stay as the CLI got them: blocking as a rule, and waited on with poll if the
// user's shell left one non-blocking.

#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>

namespace errand::remote {

// The system's wording for errno value `error` (thread-safe, unlike strerror).
std::string call_os_reason(int error);

// All of data to fd, or the system's reason it could not be written.
sdk::Result<void> write_whole(int fd, std::string_view data);

// A line of the call's own on stderr ("job HANDLE", "queued: position 2"); a note that cannot be
// written is not worth failing the job's call over, so nothing is reported.
void write_note(int fd, std::string_view line);

}  // namespace errand::remote
