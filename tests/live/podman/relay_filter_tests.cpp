// errand-relay's refusal when errand's filter cannot be loaded: the relay is started under a
// seccomp program of the test's own that answers EPERM to prctl(PR_SET_SECCOMP), the call the
// relay loads its first program with, so its load really fails in the kernel; it must then end
// with 126 and its reason, and the agent must never run. seccomp(2) stays allowed: libseccomp
// asks it what the kernel supports while the filter is built, and refused there it would fail
// the build instead, which is not the path under test.

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cerrno>
#include <cstddef>
#include <filesystem>
#include <string>

#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

namespace fs = std::filesystem;

namespace {

struct Ended {
  int status = 0;
  std::string err;
};

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_refusing_filters(int err_fd, const char* const argv[]) {
  sock_filter program[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof program / sizeof program[0]), program};
  if (::dup2(err_fd, STDERR_FILENO) < 0 || ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
    ::_exit(99);
  ::execv(argv[0], const_cast<char* const*>(argv));
  ::_exit(98);
}

Ended run_relay_refused_filters(const char* const argv[]) {
  int pipe_fds[2];
  REQUIRE(::pipe2(pipe_fds, O_CLOEXEC) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) exec_refusing_filters(pipe_fds[1], argv);
  ::close(pipe_fds[1]);
  Ended ended;
  char buf[1024];
  for (ssize_t n; (n = ::read(pipe_fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    ended.err.append(buf, static_cast<std::size_t>(n));
  }
  ::close(pipe_fds[0]);
  while (::waitpid(pid, &ended.status, 0) < 0 && errno == EINTR) {
  }
  return ended;
}

}  // namespace

TEST_CASE("errand-relay that cannot load errand's filter exits 126 and the agent never runs",
          "[live]") {
  errand::test::TempDir dir;
  const auto marker = dir.path() / "agent-ran";
  const std::string script = "echo ran > '" + marker.string() + "'";
  const std::string relay = errand::test::build_path(ERRAND_RELAY_PROGRAM);
  const char* const argv[] = {relay.c_str(), "--no-broker",  "/bin/sh",
                              "-c",          script.c_str(), nullptr};
  const auto ended = run_relay_refused_filters(argv);
  INFO(ended.err);
  REQUIRE(WIFEXITED(ended.status));
  CHECK(WEXITSTATUS(ended.status) == 126);
  CHECK(ended.err.find("errand-relay: loading the syscall filter: Operation not permitted") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(marker));
  // The same agent without the refusing program writes its marker, so its absence above is
  // the relay's doing and not a script that could never run.
  const char* const direct[] = {"/bin/sh", "-c", script.c_str(), nullptr};
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::execv(direct[0], const_cast<char* const*>(direct));
    ::_exit(98);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  CHECK(fs::exists(marker));
}
