#include "plugins/sandbox-incus/guest/session_limits.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace errand::incus::guest {

namespace {

sdk::Result<void> set_both(int resource, const char* name, rlim_t value) {
  const rlimit limit{value, value};
  if (::setrlimit(resource, &limit) != 0)
    return sdk::make_error(std::string("setting ") + name + " to " + std::to_string(value) + ": " +
                           std::strerror(errno));
  return {};
}

}  // namespace

sdk::Result<void> apply_session_limits(std::optional<std::uint64_t> file_max) {
  if (auto core = set_both(RLIMIT_CORE, "RLIMIT_CORE", 0); !core) return core;
  rlimit inherited{};
  if (::getrlimit(RLIMIT_NOFILE, &inherited) != 0)
    return sdk::make_error(std::string("reading RLIMIT_NOFILE: ") + std::strerror(errno));
  if (auto nofile = set_both(RLIMIT_NOFILE, "RLIMIT_NOFILE",
                             std::min<rlim_t>(kSessionNofile, inherited.rlim_max));
      !nofile)
    return nofile;
  if (file_max)
    if (auto fsize = set_both(RLIMIT_FSIZE, "RLIMIT_FSIZE", *file_max); !fsize) return fsize;
  return {};
}

}  // namespace errand::incus::guest
