#include "core/daemon/descriptor_limit.hpp"

#include <cerrno>
#include <cstring>

namespace errand::daemon {

namespace {

std::string shown(rlim_t value) {
  return value == RLIM_INFINITY ? std::string("unlimited") : std::to_string(value);
}

}  // namespace

sdk::Result<DescriptorLimit> raise_descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0)
    return sdk::make_error(std::string("reading the open file limit: ") + std::strerror(errno));
  DescriptorLimit out{limit.rlim_cur, limit.rlim_cur};
  if (limit.rlim_cur == limit.rlim_max) return out;
  limit.rlim_cur = limit.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0)
    return sdk::make_error("raising the open file limit from " + shown(out.before) + " to " +
                           shown(limit.rlim_max) + ": " + std::strerror(errno));
  out.now = limit.rlim_max;
  return out;
}

std::string describe_descriptor_limit(const DescriptorLimit& limit) {
  if (limit.now == limit.before) return "open file descriptors: " + shown(limit.now);
  return "open file descriptors: " + shown(limit.now) + " (raised from " + shown(limit.before) +
         ")";
}

}  // namespace errand::daemon
