// Every program the daemon starts goes through common/process_spawn: the child holds exactly the
// descriptors it is given (an fd the daemon left inheritable is not among them), leads a process
// group of its own (a terminal's ^C for the daemon does not reach it), runs with exactly the
// environment given, and a program that is not there is a refusal that says so.

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "common/process_spawn.hpp"

namespace common = errand::common;

namespace {

// What the child wrote to its stdout, once it has ended; its wait status in status.
std::string output_of(common::PipedProcess& child, int& status) {
  ::close(child.stdin_fd);
  child.stdin_fd = -1;
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(child.stdout_fd, buf, sizeof buf)) != 0;) {
    if (n < 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::waitpid(child.pid, &status, 0);
  child.close_all();
  return text;
}

common::SpawnRequest shell(const std::string& script) {
  common::SpawnRequest request;
  request.program = "/bin/sh";
  request.args = {"-c", script};
  request.env = {{"PATH", "/usr/bin:/bin"}, {"ERRAND_GIVEN", "yes"}};
  return request;
}

}  // namespace

TEST_CASE("a spawned child holds its three pipes and nothing the daemon left inheritable") {
  const int inheritable = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC, as a careless library
  REQUIRE(inheritable >= 0);
  auto child = common::spawn_piped(shell("ls /proc/self/fd | sort -n | tr '\\n' ' '"));
  REQUIRE(child);
  REQUIRE(child->pidfd >= 0);
  int status = 0;
  const auto fds = output_of(*child, status);
  ::close(inheritable);
  CHECK(WIFEXITED(status));
  // 0, 1 and 2, and the one ls opens to read the directory.
  CHECK(fds == "0 1 2 3 ");
}

TEST_CASE("a spawned child leads its own process group and has only the environment given") {
  auto child =
      common::spawn_piped(shell("echo $$ $(cut -d' ' -f5 /proc/$$/stat) $ERRAND_GIVEN $HOME"));
  REQUIRE(child);
  const auto pid = child->pid;
  int status = 0;
  const auto said = output_of(*child, status);
  CHECK(said == std::to_string(pid) + " " + std::to_string(pid) + " yes\n");
}

TEST_CASE("a program looked up on PATH runs, and one that is not there is refused by name") {
  auto looked_up = shell("echo found");
  looked_up.program = "sh";
  looked_up.search_path = true;
  auto child = common::spawn_piped(looked_up);
  REQUIRE(child);
  int status = 0;
  CHECK(output_of(*child, status) == "found\n");

  auto missing = shell("true");
  missing.program = "/nonexistent/errand-no-such-program";
  const auto refused = common::spawn_piped(missing);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().kind == errand::sdk::Error::Kind::not_found);
  CHECK(refused.error().message ==
        "cannot run /nonexistent/errand-no-such-program: No such file or directory");
}
