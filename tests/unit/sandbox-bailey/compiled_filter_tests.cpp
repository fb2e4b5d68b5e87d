// The syscall filter compiled once by the plugin and handed to each launcher in a sealed memory
// file: the program that arrives is the one compiled, a file that could still change or holds
// no whole program is refused, and the loaded program makes the kernel answer as the built
// filter does (checked in a forked child, by errno).

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cerrno>
#include <cstring>

#include "common/seccomp/seccomp_filter.hpp"
#include "plugins/sandbox-bailey/common/filter_handoff.hpp"

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

using namespace errand::bailey;
namespace seccomp = errand::seccomp;

namespace {

// Exit codes of the child that loads the filter; 0 when every answer was the expected one.
enum ChildOutcome {
  answered_as_built = 0,
  load_failed = 1,
  personality_allowed = 2,
  unknown_allowed = 3,
  namespace_allowed = 4,
  vsock_allowed = 5,
  ordinary_call_refused = 6
};

int load_and_probe_in_child(const seccomp::CompiledFilter& filter) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (seccomp::load_compiled_filter(filter) != 0) ::_exit(load_failed);
    errno = 0;
    if (::personality(0x0400000) != -1 || errno != EPERM) ::_exit(personality_allowed);
    errno = 0;
    if (::syscall(filter.highest_known + 1, 0, 0, 0, 0, 0, 0) != -1 || errno != ENOSYS)
      ::_exit(unknown_allowed);
    errno = 0;
    if (::unshare(CLONE_NEWUSER) != -1 || errno != EPERM) ::_exit(namespace_allowed);
    errno = 0;
    if (::socket(AF_VSOCK, SOCK_STREAM, 0) != -1 || errno != EAFNOSUPPORT) ::_exit(vsock_allowed);
    if (::getppid() <= 0) ::_exit(ordinary_call_refused);
    ::_exit(answered_as_built);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

// A memory file holding bytes, sealed or not.
int memory_file(const void* bytes, std::size_t size, bool sealed) {
  const int fd = ::memfd_create("test-filter", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, bytes, size) == static_cast<ssize_t>(size));
  if (sealed)
    REQUIRE(::fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) ==
            0);
  return fd;
}

}  // namespace

TEST_CASE("the compiled filter makes the kernel answer as the built one does") {
  const auto compiled = seccomp::CompiledFilter::compile();
  REQUIRE(compiled.has_value());
  CHECK(compiled->highest_known == seccomp::highest_known_syscall());
  CHECK_FALSE(compiled->program.empty());
  CHECK(load_and_probe_in_child(*compiled) == answered_as_built);
}

TEST_CASE("an empty compiled filter is refused rather than loaded as nothing") {
  CHECK(seccomp::load_compiled_filter(seccomp::CompiledFilter{}) == -EINVAL);
}

TEST_CASE("the sealed handoff delivers exactly the compiled program, and cannot be changed") {
  const auto compiled = seccomp::CompiledFilter::compile();
  REQUIRE(compiled.has_value());
  const auto fd = seal_compiled_filter(*compiled);
  REQUIRE(fd.has_value());
  const char junk = 0;
  errno = 0;
  CHECK(::pwrite(*fd, &junk, 1, 0) == -1);
  CHECK(errno == EPERM);
  const auto read = read_sealed_filter(*fd);
  REQUIRE(read.has_value());
  CHECK(read->highest_known == compiled->highest_known);
  REQUIRE(read->program.size() == compiled->program.size());
  CHECK(std::memcmp(read->program.data(), compiled->program.data(),
                    compiled->program.size() * sizeof(sock_filter)) == 0);
  // Read twice, as two launchers would: the offset is nobody's to move.
  CHECK(read_sealed_filter(*fd).has_value());
  CHECK(load_and_probe_in_child(*read) == answered_as_built);
  ::close(*fd);
}

TEST_CASE("a filter file that could still change, or holds no whole program, is refused") {
  const auto compiled = seccomp::CompiledFilter::compile();
  REQUIRE(compiled.has_value());
  std::string bytes(sizeof(std::int32_t), '\0');
  std::memcpy(bytes.data(), &compiled->highest_known, sizeof(std::int32_t));
  bytes.append(reinterpret_cast<const char*>(compiled->program.data()),
               compiled->program.size() * sizeof(sock_filter));

  const int unsealed = memory_file(bytes.data(), bytes.size(), false);
  const auto open_file = read_sealed_filter(unsealed);
  REQUIRE_FALSE(open_file.has_value());
  CHECK(open_file.error().message.find("not sealed") != std::string::npos);
  ::close(unsealed);

  const int torn = memory_file(bytes.data(), bytes.size() - 3, true);
  const auto partial = read_sealed_filter(torn);
  REQUIRE_FALSE(partial.has_value());
  CHECK(partial.error().message.find("not a whole program") != std::string::npos);
  ::close(torn);

  const int header_only = memory_file(bytes.data(), sizeof(std::int32_t), true);
  CHECK_FALSE(read_sealed_filter(header_only).has_value());
  ::close(header_only);
}
