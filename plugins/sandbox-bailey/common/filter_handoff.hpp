#pragma once

// How a compiled syscall filter travels from the plugin to each launcher: a sealed anonymous
// memory file, which no holder can change once it is made, so the launcher loads exactly what
// the plugin compiled and nothing on disk stands in between. It holds the highest known number
// (4 bytes, native order) and then the program's instructions.

#include <errand/sdk/result.hpp>

#include "common/seccomp/seccomp_filter.hpp"

namespace errand::bailey {

// A close-on-exec fd of the sealed file; the caller owns it.
sdk::Result<int> seal_compiled_filter(const seccomp::CompiledFilter& filter);

// The filter in fd, refused unless the file is sealed against every change and holds a whole,
// loadable program.
sdk::Result<seccomp::CompiledFilter> read_sealed_filter(int fd);

}  // namespace errand::bailey
