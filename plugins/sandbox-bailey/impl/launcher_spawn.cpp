#include "plugins/sandbox-bailey/impl/launcher_spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "plugins/sandbox-bailey/common/launcher_protocol.hpp"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

namespace errand::bailey {

using sdk::make_error;

namespace {

// Every fd we hand over is moved above the numbers the child gets, so a dup2 onto itself (which
// would keep close-on-exec) cannot happen.
int high_cloexec(int fd) {
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
  ::close(fd);
  return moved;
}

struct Pipe {
  int read = -1, write = -1;
  bool open() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    read = high_cloexec(fds[0]);
    write = high_cloexec(fds[1]);
    return read >= 0 && write >= 0;
  }
  void close() {
    if (read >= 0) ::close(read);
    if (write >= 0) ::close(write);
    read = write = -1;
  }
};

std::vector<std::string> flatten(const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& items) {
  std::vector<char*> out;
  for (auto& s : items) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// A child's fd number for each parent fd, plus everything above closed.
sdk::Result<pid_t> spawn(const std::string& path, std::vector<std::string> argv,
                         std::vector<std::string> env,
                         const std::vector<std::pair<int, int>>& fds) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  for (const auto& [from, to] : fds) posix_spawn_file_actions_adddup2(&actions, from, to);
  posix_spawn_file_actions_addclosefrom_np(&actions, kReportFd + 1);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  // Its own process group: a terminal's ^C meant for the daemon does not reach the sandbox.
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  auto args = pointers(argv);
  auto envp = pointers(env);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, path.c_str(), &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return make_error("could not start the launcher " + path + ": " + std::strerror(rc),
                      sdk::Error::Kind::unavailable);
  return pid;
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
    const std::vector<std::pair<std::string, std::string>>& env) {
  Pipe in, out, err, rep, life;
  for (auto* p : {&in, &out, &err, &rep, &life}) {
    if (!p->open()) {
      const int e = errno;
      for (auto* q : {&in, &out, &err, &rep, &life}) q->close();
      return make_error(std::string("could not create the launcher's pipes: ") + std::strerror(e));
    }
  }
  std::vector<std::string> argv{launcher};
  argv.insert(argv.end(), args.begin(), args.end());
  auto pid = spawn(launcher, argv, flatten(env),
                   {{in.read, 0},
                    {out.write, 1},
                    {err.write, 2},
                    {life.read, kLifelineFd},
                    {rep.write, kReportFd}});
  ::close(in.read);
  ::close(out.write);
  ::close(err.write);
  ::close(life.read);
  ::close(rep.write);
  LauncherHandles h;
  h.stdin_fd = in.write;
  h.stdout_fd = out.read;
  h.stderr_fd = err.read;
  h.report_fd = rep.read;
  h.lifeline_fd = life.write;
  if (!pid) {
    h.close_all();
    return pid.error();
  }
  h.pid = *pid;
  // Our own unreaped child, so the pid cannot have been reused yet.
  h.pidfd = static_cast<int>(::syscall(SYS_pidfd_open, h.pid, 0));
  if (h.pidfd < 0) {
    const int e = errno;
    ::kill(h.pid, SIGKILL);
    ::waitpid(h.pid, nullptr, 0);
    h.close_all();
    return make_error(std::string("pidfd_open on the launcher failed: ") + std::strerror(e));
  }
  return h;
}

sdk::Result<std::string> run_doctor(const std::string& launcher,
                                    const std::vector<std::pair<std::string, std::string>>& env) {
  Pipe out;
  if (!out.open()) return make_error("could not create a pipe for the doctor");
  const int null = high_cloexec(::open("/dev/null", O_RDWR | O_CLOEXEC));
  auto pid = spawn(launcher, {launcher, "doctor", "--machine"}, flatten(env),
                   {{null, 0}, {out.write, 1}, {null, 2}});
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
