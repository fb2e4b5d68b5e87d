#pragma once

// Reading a sandbox's stdout or stderr to its end, as the live tests of every backend do.

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string>

namespace errand::test {

// Everything fd gives until end of file (or a read error other than EINTR).
inline std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace errand::test
