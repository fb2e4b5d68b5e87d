#include "tests/support/own_network.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace errand::test {
namespace {

// Exit codes of the namespace set-up, distinct from what Catch2 returns.
constexpr int kSetupFailed = 90;

void say(const std::string& text) {
  const std::string line = "own network: " + text + "\n";
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, line.data(), line.size());
}

[[noreturn]] void setup_failed(const std::string& what) {
  say(what + ": " + std::strerror(errno));
  ::_exit(kSetupFailed);
}

void write_proc_file(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) setup_failed(std::string("opening ") + path);
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    setup_failed(std::string("writing \"") + text + "\" to " + path);
  ::close(fd);
}

// A new user namespace in which this process's one account (inside) stands for the account it
// was (outside), so the caller keeps every capability there until it runs another program.
void enter_user_namespace(int extra_flags, uid_t inside_uid, gid_t inside_gid) {
  const uid_t outside_uid = ::geteuid();
  const gid_t outside_gid = ::getegid();
  if (::unshare(CLONE_NEWUSER | extra_flags) != 0) setup_failed("unshare");
  write_proc_file("/proc/self/setgroups", "deny");
  write_proc_file("/proc/self/uid_map",
                  std::to_string(inside_uid) + " " + std::to_string(outside_uid) + " 1\n");
  write_proc_file("/proc/self/gid_map",
                  std::to_string(inside_gid) + " " + std::to_string(outside_gid) + " 1\n");
}

// Runs iproute2's ip with these arguments, its output going where ours goes; true when it
// succeeded. It runs as root of the namespace, so it holds CAP_NET_ADMIN there.
bool ip(std::vector<std::string> args) {
  std::string shown = "ip";
  for (const auto& a : args) shown += " " + a;
  args.insert(args.begin(), "ip");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) setup_failed("fork for " + shown);
  if (pid == 0) {
    ::execvp("ip", argv.data());
    say("running " + shown + ": " + std::strerror(errno) + " (scripts/setup installs iproute2)");
    ::_exit(127);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) setup_failed("waiting for " + shown);
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ok) say(shown + " failed");
  return ok;
}

void must(std::vector<std::string> args) {
  if (!ip(std::move(args))) {
    errno = 0;
    say("the namespace's interface could not be set up");
    ::_exit(kSetupFailed);
  }
}

// In the forked child: makes the namespace, then becomes the test binary's run of test_case.
[[noreturn]] void become_inner_run(const std::string& test_case) {
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  // Root of a new user namespace that owns a new network namespace, so ip may configure it.
  enter_user_namespace(CLONE_NEWNET, 0, 0);
  must({"link", "set", "lo", "up"});
  // A dummy interface where the kernel has the driver; a veth pair where it has not (some
  // virtual machines' kernels are built without dummy). Either carries the address alike.
  if (!ip({"link", "add", kOwnInterface, "type", "dummy"})) {
    say("no dummy interface; using a veth pair instead");
    must({"link", "add", kOwnInterface, "type", "veth", "peer", "name", "errand-own1"});
    must({"link", "set", "errand-own1", "up"});
  }
  must({"link", "set", kOwnInterface, "up"});
  must({"address", "add", std::string(kOwnAddressV4) + "/24", "dev", kOwnInterface});
  must({"-6", "address", "add", std::string(kOwnAddressV6) + "/64", "dev", kOwnInterface, "nodad"});
  // A second user namespace, inside the first, in which this process is the test account
  // again: the inner run is no root anywhere, holds no capability once it starts, and sees
  // the same network.
  enter_user_namespace(0, uid, gid);
  std::string self = "/proc/self/exe";
  std::string name = test_case;
  std::string order = "--order";
  std::string decl = "decl";
  char* argv[] = {self.data(), name.data(), order.data(), decl.data(), nullptr};
  ::execv(self.c_str(), argv);
  setup_failed("running the test binary again");
}

}  // namespace

OwnNetworkRun run_case_in_own_network(const std::string& test_case) {
  OwnNetworkRun run;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    run.output = std::string("own network: pipe: ") + std::strerror(errno);
    return run;
  }
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    run.output = std::string("own network: fork: ") + std::strerror(errno);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return run;
  }
  if (pid == 0) {
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::dup2(pipe_fds[1], STDERR_FILENO);
    become_inner_run(test_case);
  }
  ::close(pipe_fds[1]);
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n > 0) {
      run.output.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

bool one_case_passed(const OwnNetworkRun& run) {
  return run.exit_code == 0 && run.output.find("All tests passed") != std::string::npos &&
         run.output.find(" in 1 test case)") != std::string::npos;
}

}  // namespace errand::test
