// errand-guest-init: the process incusd execs (as root in the guest, systemd being PID 1) to run
// one session's agent. See init_options.hpp for its command line. In order: it reads the secret
// preamble from stdin (exactly its length, so the agent's stream stays in fd 0), checks that the
// guest holds errand's system-call rules when asked to (syscall_policy_check.hpp), sets the
// session's rlimits (session_limits.hpp), mounts fresh tmpfs on /tmp and /dev/shm, brings up the
// loopback, configures the addresses the plugin pinned on the session's nics (static_network.hpp)
// or else waits for the nic's default route when the session keeps one (network_wait.hpp),
// becomes the session's subreaper, starts the relay to the broker as the agent's account
// when there is a broker, then the agent. It passes SIGTERM, SIGINT, SIGHUP and SIGQUIT on to the
// agent; when the agent exits it ends the relay and everything the agent left, and exits as the
// agent did (128+N for a signal). A relay that ends while the agent runs ends the session with
// kInitFailed: an agent silently offline would be worse. It never writes to stdout. Linked
// statically, since the guest image holds none of errand's libraries.

#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <string>

#include "common/secret_preamble/secret_preamble.hpp"
#include "common/supervisor/supervisor.hpp"
#include "plugins/sandbox-incus/guest/agent_process.hpp"
#include "plugins/sandbox-incus/guest/descendants.hpp"
#include "plugins/sandbox-incus/guest/exit_codes.hpp"
#include "plugins/sandbox-incus/guest/guest_account.hpp"
#include "plugins/sandbox-incus/guest/init_failure.hpp"
#include "plugins/sandbox-incus/guest/init_options.hpp"
#include "plugins/sandbox-incus/guest/loopback.hpp"
#include "plugins/sandbox-incus/guest/network_wait.hpp"
#include "plugins/sandbox-incus/guest/relay_process.hpp"
#include "plugins/sandbox-incus/guest/session_limits.hpp"
#include "plugins/sandbox-incus/guest/session_mounts.hpp"
#include "plugins/sandbox-incus/guest/static_network.hpp"
#include "plugins/sandbox-incus/guest/syscall_policy_check.hpp"

extern char** environ;

namespace {

using namespace errand::incus::guest;

constexpr std::uint64_t kSignalTag = 1;
constexpr std::uint64_t kRelayTag = 2;

[[noreturn]] void end_session(int code) {
  end_descendants();
  ::_exit(code);
}

int exit_status_of(int status) {
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : kInitFailed;
}

void watch(int epoll_fd, int fd, std::uint64_t tag) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = tag;
  if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) fail_errno("epoll_ctl", errno);
}

}  // namespace

int main(int argc, char** argv) {
  const auto options = parse_options(argc, argv);
  if (!options) fail(options.error().message);
  const auto secrets = errand::secret_preamble::read_from(STDIN_FILENO);
  if (!secrets) fail(secrets.error().message + "; the agent was not started");
  if (options->check_syscall_policy)
    if (auto held = check_syscall_policy(); !held) fail(held.error().message);
  if (auto limited = apply_session_limits(options->file_max); !limited)
    fail(limited.error().message + "; the agent was not started");
  for (const auto* dir : {"/tmp", "/dev/shm"}) {
    const auto bytes = std::string(dir) == "/tmp" ? options->tmp_bytes : options->shm_bytes;
    if (auto mounted = mount_fresh_tmpfs(dir, bytes); !mounted) fail(mounted.error().message);
  }
  // The relay listens on 127.0.0.1 and the agent may connect at once (loopback.hpp).
  if (auto up = bring_up_loopback(); !up) fail(up.error().message + "; the agent was not started");
  if (!options->network.addresses.empty())
    if (auto configured = apply_static_network(options->network); !configured)
      fail("configuring the session's network: " + configured.error().message +
           "; the agent was not started");
  if (options->await_network)
    if (auto routed = await_default_route(kNetworkDeadline); !routed)
      fail(routed.error().message + "; the agent was not started");
  const auto account = find_account(options->uid);
  if (!account) fail(account.error().message);
  const auto environment = agent_environment(environ, *account, options->home, *secrets);
  if (!environment) fail(environment.error().message);
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) fail_errno("PR_SET_CHILD_SUBREAPER", errno);

  const sigset_t handled = errand::supervisor::supervisor_signals();
  if (::sigprocmask(SIG_BLOCK, &handled, nullptr) != 0) fail_errno("blocking signals", errno);
  const int epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) fail_errno("epoll_create1", errno);
  const auto watched = errand::supervisor::watch_supervisor_signals(epoll_fd, kSignalTag);
  if (!watched) fail(watched.error().message);
  const int signal_fd = *watched;

  std::optional<RelayProcess> relay;
  if (options->broker_socket) {
    auto started = start_relay(*options->broker_socket, *account);
    if (!started) fail(started.error().message + "; the agent was not started");
    relay = *started;
    watch(epoll_fd, relay->pidfd, kRelayTag);
  }

  const auto agent = start_agent({options->program, *environment, options->cwd}, *account);
  if (agent.pid < 0) {
    const std::string line = "errand-guest-init: " + agent.failure + "\n";
    [[maybe_unused]] const auto n = ::write(STDERR_FILENO, line.data(), line.size());
    end_session(agent.failure_code);
  }

  errand::supervisor::Supervision supervision;
  supervision.epoll_fd = epoll_fd;
  supervision.signal_fd = signal_fd;
  supervision.signal_tag = kSignalTag;
  supervision.agent = agent.pid;
  supervision.forward = [&](int sig) { ::kill(agent.pid, sig); };
  supervision.other = [&](std::uint64_t tag, std::uint32_t) {
    if (tag != kRelayTag) return;
    ::kill(agent.pid, SIGKILL);
    const std::string line =
        "errand-guest-init: the relay to the broker ended while the agent ran; the session "
        "ends rather than go on without its network\n";
    [[maybe_unused]] const auto written = ::write(STDERR_FILENO, line.data(), line.size());
    end_session(kInitFailed);
  };
  const auto agent_status = errand::supervisor::supervise_until_agent_ends(supervision);
  if (!agent_status) {
    ::kill(agent.pid, SIGKILL);
    end_session(kInitFailed);
  }
  // end_descendants ends the relay with the rest.
  end_session(exit_status_of(*agent_status));
}
