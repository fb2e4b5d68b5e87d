// The daemon's soft descriptor limit is raised to the hard one at start, and the start-up line
// says from what. Checked in a child process, whose limits the test may lower freely.

#include "core/daemon/descriptor_limit.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <string>

using namespace errand::daemon;

TEST_CASE("the soft descriptor limit is raised to the hard one, and the line says from what") {
  int out[2];
  REQUIRE(::pipe(out) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // As systemd starts a service: a soft limit of 1024 under a higher hard one.
    rlimit limit{};
    ::getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_max = 4096;
    limit.rlim_cur = 1024;
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) ::_exit(3);
    const auto raised = raise_descriptor_limit();
    rlimit after{};
    ::getrlimit(RLIMIT_NOFILE, &after);
    const std::string line = raised ? describe_descriptor_limit(*raised) : raised.error().message;
    const std::string report = line + "|" + std::to_string(after.rlim_cur) + "\n";
    if (::write(out[1], report.data(), report.size()) < 0) ::_exit(4);
    ::_exit(raised ? 0 : 2);
  }
  ::close(out[1]);
  std::string report;
  char buf[256];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) report.append(buf, n);
  ::close(out[0]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  INFO(report);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(report == "open file descriptors: 4096 (raised from 1024)|4096\n");
  // Already at the hard limit: said plainly.
  CHECK(describe_descriptor_limit({4096, 4096}) == "open file descriptors: 4096");
}
