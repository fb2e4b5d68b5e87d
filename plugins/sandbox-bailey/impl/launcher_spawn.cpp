#include "plugins/sandbox-bailey/impl/launcher_spawn.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/process_spawn.hpp"
#include "plugins/sandbox-bailey/common/launcher_protocol.hpp"

namespace errand::bailey {

using sdk::make_error;

namespace {

struct Pipe {
  int read = -1, write = -1;
  bool open() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    // Above every number the launcher gets, so no dup2 in the child lands a pipe on itself.
    read = common::move_fd_at_least(fds[0], kFilterFd + 1);
    write = common::move_fd_at_least(fds[1], kFilterFd + 1);
    return read >= 0 && write >= 0;
  }
  void close() {
    if (read >= 0) ::close(read);
    if (write >= 0) ::close(write);
    read = write = -1;
  }
};

common::SpawnRequest launcher_request(const std::string& launcher, std::vector<std::string> args,
                                      const std::vector<std::pair<std::string, std::string>>& env,
                                      std::vector<std::pair<int, int>> fds) {
  return {launcher, std::move(args), env, std::move(fds), kFilterFd + 1, {}};
}

}  // namespace

void LauncherHandles::close_all() noexcept {
  for (int* fd : {&pidfd, &stdin_fd, &stdout_fd, &stderr_fd, &report_fd, &lifeline_fd})
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
}

sdk::Result<LauncherHandles> spawn_launcher(
    const std::string& launcher, const std::vector<std::string>& args,
    const std::vector<std::pair<std::string, std::string>>& env, int filter_fd) {
  Pipe rep, life;
  for (auto* p : {&rep, &life}) {
    if (!p->open()) {
      const int e = errno;
      for (auto* q : {&rep, &life}) q->close();
      return make_error(std::string("could not create the launcher's pipes: ") + std::strerror(e));
    }
  }
  auto spawned = common::spawn_piped(
      launcher_request(launcher, args, env,
                       {{life.read, kLifelineFd}, {rep.write, kReportFd}, {filter_fd, kFilterFd}}));
  ::close(life.read);
  ::close(rep.write);
  LauncherHandles h;
  h.report_fd = rep.read;
  h.lifeline_fd = life.write;
  if (!spawned) {
    h.close_all();
    return spawned.error();
  }
  h.pid = spawned->pid;
  h.pidfd = spawned->pidfd;
  h.stdin_fd = spawned->stdin_fd;
  h.stdout_fd = spawned->stdout_fd;
  h.stderr_fd = spawned->stderr_fd;
  return h;
}

sdk::Result<std::string> run_doctor(const std::string& launcher,
                                    const std::vector<std::pair<std::string, std::string>>& env) {
  Pipe out;
  if (!out.open()) return make_error("could not create a pipe for the doctor");
  const int null = common::move_fd_at_least(::open("/dev/null", O_RDWR | O_CLOEXEC), 3);
  auto pid = common::spawn_process(launcher_request(launcher, {"doctor", "--machine"}, env,
                                                    {{null, 0}, {out.write, 1}, {null, 2}}));
  ::close(out.write);
  if (null >= 0) ::close(null);
  if (!pid) {
    ::close(out.read);
    return pid.error();
  }
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(out.read, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(out.read);
  int status = 0;
  while (::waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return make_error("errand-bailey doctor failed (" + launcher + ")");
  return text;
}

unsigned long long process_start_time(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(text.substr(close + 2));
  std::string field;
  // Fields after the command name start at 3 (state); the start time is field 22.
  for (int i = 3; i < 22 && rest >> field; ++i) {
  }
  unsigned long long start = 0;
  rest >> start;
  return start;
}

}  // namespace errand::bailey
