#pragma once
// Finds what AddressSanitizer, LeakSanitizer, UndefinedBehaviorSanitizer or ThreadSanitizer
// wrote into a daemon's output. Against a sanitized errand (the asan tree), the harness fails a
// scenario whose daemon reported anything, even when the scenario's own checks passed: a leak is
// only reported as the daemon exits, and no scenario looks at that.

#include <string>
#include <string_view>

namespace errand::e2e {

// The first report in `output`, from its first line, at most `max_lines` lines of it; empty
// when there is none.
std::string sanitizer_report(std::string_view output, std::size_t max_lines = 60);

}  // namespace errand::e2e
