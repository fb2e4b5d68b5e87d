#include "plugins/sandbox-bailey/launcher/host_side.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "plugins/sandbox-bailey/common/filter_handoff.hpp"
#include "plugins/sandbox-bailey/common/launcher_protocol.hpp"
#include "plugins/sandbox-bailey/common/policy_toml.hpp"
#include "plugins/sandbox-bailey/launcher/prepared.hpp"
#include "plugins/sandbox-bailey/launcher/sandbox_init.hpp"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

namespace errand::bailey::launcher {

namespace {

Prepared prepare(const std::string& policy_path) {
  std::ifstream in(policy_path);
  if (!in) fail_errno("reading the policy " + policy_path);
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = parse_policy(text.str());
  if (!parsed) fail(parsed.error().message);
  Prepared out;
  out.policy = std::move(*parsed);
  for (const auto& [name, value] : out.policy.env_set) out.envp.push_back(name + "=" + value);
  for (const auto& name : out.policy.env_pass) {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) fail("the daemon did not pass a value for " + name);
    out.envp.push_back(name + "=" + value);
  }
  auto filter = read_sealed_filter(kFilterFd);
  if (!filter) fail(filter.error().message);
  out.filter = std::move(*filter);
  // Read once into memory; nothing in the sandbox needs the file.
  ::close(kFilterFd);
  return out;
}

bool write_text(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

void map_ids(pid_t child) {
  const auto base = "/proc/" + std::to_string(child);
  if (!write_text(base + "/setgroups", "deny")) fail_errno("denying setgroups in the sandbox");
  if (!write_text(base + "/uid_map", "0 " + std::to_string(::getuid()) + " 1"))
    fail_errno("mapping the daemon's uid to root in the sandbox");
  if (!write_text(base + "/gid_map", "0 " + std::to_string(::getgid()) + " 1"))
    fail_errno("mapping the daemon's gid in the sandbox");
}

// The launcher joins first and the sandbox inherits: it is born inside, and a single-threaded
// process moving itself is the cheap path through the kernel.
void join_cgroups(const Policy& policy) {
  for (const auto& file : policy.cgroup_join)
    if (!write_text(file, "0")) fail_errno("joining the session's cgroup (" + file + ")");
}

// pasta joins the sandbox's network namespace and stays in the foreground as our child; the
// sandbox waits for the interface it configures before it goes on.
pid_t start_pasta(pid_t child, const Policy& policy) {
  const pid_t pid = ::fork();
  if (pid < 0) fail_errno("forking pasta");
  if (pid != 0) return pid;
  const int null = ::open("/dev/null", O_RDWR);
  for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
  ::syscall(SYS_close_range, 3, ~0U, 0);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // pasta outlives nothing it serves: it goes when the launcher does.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const auto target = std::to_string(child);
  // pasta would drop to nobody, who cannot enter a namespace the daemon's uid owns.
  const auto runas = std::to_string(::getuid()) + ":" + std::to_string(::getgid());
  const char* argv[] = {policy.pasta_path.c_str(),
                        "--foreground",
                        "--quiet",
                        "--runas",
                        runas.c_str(),
                        "--config-net",
                        "--no-map-gw",
                        "-a",
                        "10.0.2.15",
                        "-n",
                        "24",
                        "-g",
                        "10.0.2.2",
                        "-a",
                        "fd00:e44a:5e55::15",
                        "-g",
                        "fd00:e44a:5e55::2",
                        "--dns-forward",
                        "10.0.2.3",
                        "-t",
                        "none",
                        "-u",
                        "none",
                        "-T",
                        "none",
                        "-U",
                        "none",
                        target.c_str(),
                        nullptr};
  const char* envp[] = {nullptr};
  ::execve(argv[0], const_cast<char* const*>(argv), const_cast<char* const*>(envp));
  ::_exit(127);
}

void quiet_stdio() {
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) return;
  for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
  ::close(null);
}

// Waits for the sandbox's first process; returns its wait status.
int supervise(pid_t child, pid_t pasta) {
  sigset_t watched;
  sigemptyset(&watched);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&watched, sig);
  const int signal_fd = ::signalfd(-1, &watched, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signal_fd < 0) {
    ::kill(child, SIGKILL);
    fail_errno("signalfd");
  }
  pollfd fds[2] = {{signal_fd, POLLIN, 0}, {kLifelineFd, POLLIN, 0}};
  bool lifeline = true;
  while (true) {
    int status = 0;
    const pid_t done = ::waitpid(child, &status, WNOHANG);
    if (done == child) {
      if (pasta > 0) {
        ::kill(pasta, SIGTERM);
        ::waitpid(pasta, nullptr, 0);
      }
      return status;
    }
    if (::poll(fds, lifeline ? 2 : 1, -1) < 0 && errno != EINTR) {
      ::kill(child, SIGKILL);
      continue;
    }
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo info{};
      while (::read(signal_fd, &info, sizeof info) == sizeof info)
        if (info.ssi_signo != SIGCHLD) ::kill(child, static_cast<int>(info.ssi_signo));
    }
    if (lifeline && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      char byte;
      if (::read(kLifelineFd, &byte, 1) <= 0) {
        // The daemon is gone; nothing may outlive it unsupervised.
        ::kill(child, SIGKILL);
        lifeline = false;
      }
    }
  }
}

}  // namespace

int run_sandbox(const std::string& policy_path) {
  // Only stdio, the lifeline, the report pipe and the filter are ours; anything else leaked in.
  ::syscall(SYS_close_range, kFilterFd + 1, ~0U, 0);
  if (::fcntl(kReportFd, F_GETFD) < 0 || ::fcntl(kLifelineFd, F_GETFD) < 0 ||
      ::fcntl(kFilterFd, F_GETFD) < 0) {
    static const char message[] =
        "errand-bailey run is started by the sandbox-bailey plugin, with its lifeline on fd 3, "
        "its report pipe on fd 4 and its syscall filter on fd 5\n";
    [[maybe_unused]] auto n = ::write(2, message, sizeof message - 1);
    return 2;
  }
  const Prepared prepared = prepare(policy_path);
  const Policy& policy = prepared.policy;

  // Blocked here so the sandbox's PID 1 inherits them blocked and takes them from a signalfd.
  sigset_t blocked;
  sigemptyset(&blocked);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&blocked, sig);
  ::sigprocmask(SIG_BLOCK, &blocked, nullptr);

  join_cgroups(policy);
  int release[2];
  if (::pipe2(release, O_CLOEXEC) != 0) fail_errno("creating the release pipe");
  unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWIPC;
  if (policy.network != NetworkPlan::host) flags |= CLONE_NEWNET;
  const long child = ::syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
  if (child < 0) fail_errno("creating the sandbox's namespaces");
  if (child == 0) {
    ::close(release[1]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    char go = 0;
    // The host side writes one byte once the ids are mapped; end-of-file means it gave up.
    while (::read(release[0], &go, 1) < 0 && errno == EINTR) {
    }
    if (go != 1) ::_exit(1);
    ::close(release[0]);
    run_sandbox_init(prepared);
  }
  ::close(release[0]);
  const pid_t pid = static_cast<pid_t>(child);
  map_ids(pid);
  const pid_t pasta = policy.network == NetworkPlan::pasta ? start_pasta(pid, policy) : -1;
  const char go = 1;
  if (::write(release[1], &go, 1) != 1) fail_errno("releasing the sandbox");
  ::close(release[1]);
  quiet_stdio();

  const int status = supervise(pid, pasta);
  // PID 1 exits 0 once it has reported the agent's end and 1 after reporting an error; any other
  // end (a kill from outside, the OOM killer) is reported here.
  if (WIFSIGNALED(status))
    report(format_exit_signal(WTERMSIG(status)));
  else if (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 1)
    report(format_error("the sandbox's first process exited with " +
                        std::to_string(WEXITSTATUS(status))));
  return 0;
}

}  // namespace errand::bailey::launcher
