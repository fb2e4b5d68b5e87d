#include "plugins/sandbox-bailey/launcher/sandbox_init.hpp"

#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <errand/sdk/result.hpp>
#include <memory>
#include <optional>

#include "common/broker_relay/broker_relay.hpp"
#include "common/supervisor/supervisor.hpp"
#include "plugins/sandbox-bailey/common/launcher_protocol.hpp"
#include "plugins/sandbox-bailey/launcher/agent_exec.hpp"
#include "plugins/sandbox-bailey/launcher/sandbox_root.hpp"

namespace errand::bailey::launcher {

namespace {

constexpr std::uint64_t kSignalTag = 1;

void bring_loopback_up() {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail_errno("opening a socket to configure loopback");
  ifreq req{};
  std::strncpy(req.ifr_name, "lo", IFNAMSIZ - 1);
  if (::ioctl(fd, SIOCGIFFLAGS, &req) != 0) fail_errno("reading loopback's flags");
  req.ifr_flags = static_cast<short>(req.ifr_flags | IFF_UP | IFF_RUNNING);
  if (::ioctl(fd, SIOCSIFFLAGS, &req) != 0) fail_errno("bringing loopback up");
  ::close(fd);
}

// pasta configures the namespace from outside; nothing may start before its interface has an
// address, or the agent's first connection would fail for no reason it could see.
void wait_for_pasta() {
  for (int attempt = 0; attempt < 5000; ++attempt) {
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) == 0) {
      bool ready = false;
      for (auto* a = list; a != nullptr; a = a->ifa_next)
        ready = ready || (a->ifa_addr != nullptr && a->ifa_addr->sa_family == AF_INET &&
                          std::strcmp(a->ifa_name, "lo") != 0);
      ::freeifaddrs(list);
      if (ready) return;
    }
    ::usleep(2000);
  }
  fail("pasta did not configure the sandbox's network within 10 seconds");
}

// Waits for the agent's exec: silence on the close-on-exec pipe means it started; otherwise
// the error is what the child wrote there before it gave up.
sdk::Result<void> exec_outcome(int read_fd) {
  std::string text;
  char buf[512];
  while (true) {
    const ssize_t n = ::read(read_fd, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  ::close(read_fd);
  if (!text.empty()) return sdk::make_error(std::move(text));
  return {};
}

void quiet_init_stdio() {
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) return;
  for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
  ::close(null);
}

// Kills whatever is left in the namespace and reaps it, so the report is the last word.
void end_namespace() {
  ::kill(-1, SIGKILL);
  while (true) {
    const pid_t pid = ::waitpid(-1, nullptr, 0);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0) break;
  }
}

}  // namespace

void run_sandbox_init(const Prepared& prepared) {
  const Policy& p = prepared.policy;
  if (::sethostname("errand", 6) != 0) fail_errno("setting the hostname");
  if (p.network != NetworkPlan::host) bring_loopback_up();
  if (p.network == NetworkPlan::pasta) wait_for_pasta();
  build_sandbox_root(p);

  const int epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) fail_errno("epoll_create1");
  std::unique_ptr<broker_relay::Relay> relay;
  if (p.network == NetworkPlan::broker) {
    auto listening = broker_relay::Relay::listen(epoll_fd, kBrokerSocketInside);
    if (!listening) fail(listening.error().message);
    relay = std::move(*listening);
  }

  const auto watched = supervisor::watch_supervisor_signals(epoll_fd, kSignalTag);
  if (!watched) fail(watched.error().message);
  const int signal_fd = *watched;

  int exec_pipe[2];
  if (::pipe2(exec_pipe, O_CLOEXEC) != 0) fail_errno("creating the exec pipe");
  const pid_t agent = ::fork();
  if (agent < 0) fail_errno("forking the agent");
  if (agent == 0) {
    ::close(exec_pipe[0]);
    exec_agent(prepared, exec_pipe[1]);
  }
  ::close(exec_pipe[1]);
  if (auto started = exec_outcome(exec_pipe[0]); !started) {
    end_namespace();
    fail(started.error().message);
  }
  report(format_running(agent));
  // Nothing in the sandbox may read or trace this process.
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  quiet_init_stdio();

  supervisor::Supervision supervision;
  supervision.epoll_fd = epoll_fd;
  supervision.signal_fd = signal_fd;
  supervision.signal_tag = kSignalTag;
  supervision.agent = agent;
  // Termination goes to every process in the namespace.
  supervision.forward = [](int sig) { ::kill(-1, sig); };
  supervision.other = [&relay](std::uint64_t tag, std::uint32_t events) {
    if (relay && relay->owns(tag)) relay->on_event(tag, events);
  };
  const auto agent_status = supervisor::supervise_until_agent_ends(supervision);
  // The session is the agent: whatever it left running goes with it.
  relay.reset();
  end_namespace();
  if (!agent_status)
    report(format_error("the sandbox's supervisor lost track of the agent: " +
                        agent_status.error().message));
  else if (WIFSIGNALED(*agent_status))
    report(format_exit_signal(WTERMSIG(*agent_status)));
  else
    report(format_exit_code(WEXITSTATUS(*agent_status)));
  ::_exit(0);
}

}  // namespace errand::bailey::launcher
