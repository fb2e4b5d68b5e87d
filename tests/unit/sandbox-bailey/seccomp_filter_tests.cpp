// The syscall filter as a value: built once, moved to where it is loaded, and loaded for real in
// a forked child, where the kernel's answers (errno) show that the moved filter is the one that
// was built. A leaked or doubly released context shows under the asan preset.

#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cerrno>
#include <utility>

#include "common/seccomp/seccomp_filter.hpp"

using namespace errand::bailey;
namespace seccomp = errand::seccomp;

namespace {

// Exit codes of the child that loads the filter; 0 when every answer was the expected one.
enum FilterChildOutcome {
  filter_answered_as_built = 0,
  filter_load_failed = 1,
  filter_personality_allowed = 2,
  filter_unknown_allowed = 3
};

int load_and_probe_in_child(const seccomp::SeccompFilter& filter) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (seccomp::load_seccomp_filter(filter) != 0) ::_exit(filter_load_failed);
    errno = 0;
    if (::personality(0x0400000) != -1 || errno != EPERM) ::_exit(filter_personality_allowed);
    errno = 0;
    if (::syscall(filter.highest_known() + 1, 0, 0, 0, 0, 0, 0) != -1 || errno != ENOSYS)
      ::_exit(filter_unknown_allowed);
    ::_exit(filter_answered_as_built);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("a built filter knows the architecture's highest syscall") {
  const auto filter = seccomp::build_seccomp_filter();
  REQUIRE(filter.has_value());
  CHECK(filter->highest_known() > 0);
  CHECK(filter->highest_known() == seccomp::highest_known_syscall());
}

TEST_CASE("a moved filter is the one the kernel enforces, and the husk loads nothing") {
  auto built = seccomp::build_seccomp_filter();
  REQUIRE(built.has_value());
  seccomp::SeccompFilter moved = std::move(*built);
  CHECK(seccomp::load_seccomp_filter(*built) == -EINVAL);
  CHECK(load_and_probe_in_child(moved) == filter_answered_as_built);
}

TEST_CASE("a filter assigned over another releases the old one and enforces the new") {
  auto first = seccomp::build_seccomp_filter();
  auto second = seccomp::build_seccomp_filter();
  REQUIRE(first.has_value());
  REQUIRE(second.has_value());
  *first = std::move(*second);
  CHECK(seccomp::load_seccomp_filter(*second) == -EINVAL);
  CHECK(load_and_probe_in_child(*first) == filter_answered_as_built);
}
