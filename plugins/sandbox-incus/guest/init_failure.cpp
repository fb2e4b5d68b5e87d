#include "plugins/sandbox-incus/guest/init_failure.hpp"

#include <unistd.h>

#include <cstring>
#include <string>

#include "plugins/sandbox-incus/guest/exit_codes.hpp"

namespace errand::incus::guest {

void fail(std::string_view what) {
  std::string line = "errand-guest-init: ";
  line.append(what).append("\n");
  [[maybe_unused]] const auto n = ::write(STDERR_FILENO, line.data(), line.size());
  ::_exit(kInitFailed);
}

void fail_errno(std::string_view what, int error) {
  fail(std::string(what) + ": " + std::strerror(error));
}

}  // namespace errand::incus::guest
