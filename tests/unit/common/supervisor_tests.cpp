// The in-sandbox supervisor's loop (common/supervisor), run in this process over a real child: a
// termination signal the supervisor is sent reaches the agent through forward, an event under
// another tag reaches other, and the loop returns the agent's own wait status once it has ended.

#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <csignal>
#include <cstdint>
#include <vector>

#include "common/supervisor/supervisor.hpp"

namespace supervisor = errand::supervisor;

namespace {

constexpr std::uint64_t kSignalTag = 1;
constexpr std::uint64_t kPipeTag = 2;

// The supervisor's signals blocked while it lives, as every supervisor blocks them before it
// forks; restored after, with whatever arrived meanwhile taken.
class BlockedSignals {
 public:
  BlockedSignals() {
    const sigset_t handled = supervisor::supervisor_signals();
    ::sigprocmask(SIG_BLOCK, &handled, &previous_);
  }
  ~BlockedSignals() { ::sigprocmask(SIG_SETMASK, &previous_, nullptr); }
  const sigset_t& previous() const { return previous_; }

 private:
  sigset_t previous_;
};

}  // namespace

TEST_CASE("the supervisor passes a termination signal on and returns the agent's end") {
  BlockedSignals blocked;
  const int epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  REQUIRE(epoll_fd >= 0);
  const auto watched = supervisor::watch_supervisor_signals(epoll_fd, kSignalTag);
  REQUIRE(watched.has_value());
  const int signal_fd = *watched;
  int wake[2];
  REQUIRE(::pipe2(wake, O_CLOEXEC) == 0);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kPipeTag;
  REQUIRE(::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake[0], &ev) == 0);

  const pid_t agent = ::fork();
  REQUIRE(agent >= 0);
  if (agent == 0) {
    ::sigprocmask(SIG_SETMASK, &blocked.previous(), nullptr);
    ::pause();
    ::_exit(0);
  }
  std::vector<int> forwarded;
  std::vector<std::uint64_t> others;
  supervisor::Supervision supervision;
  supervision.epoll_fd = epoll_fd;
  supervision.signal_fd = signal_fd;
  supervision.signal_tag = kSignalTag;
  supervision.agent = agent;
  supervision.forward = [&](int sig) {
    forwarded.push_back(sig);
    ::kill(agent, sig);
  };
  supervision.other = [&](std::uint64_t tag, std::uint32_t) {
    others.push_back(tag);
    char byte = 0;
    REQUIRE(::read(wake[0], &byte, 1) == 1);
    // The supervisor itself is told to end, as podman stop or incusd would tell it.
    ::kill(::getpid(), SIGTERM);
  };
  REQUIRE(::write(wake[1], "x", 1) == 1);
  const auto status = supervisor::supervise_until_agent_ends(supervision);
  REQUIRE(status);
  CHECK(WIFSIGNALED(*status));
  CHECK(WTERMSIG(*status) == SIGTERM);
  CHECK(forwarded == std::vector<int>{SIGTERM});
  CHECK(others == std::vector<std::uint64_t>{kPipeTag});
  for (int fd : {epoll_fd, signal_fd, wake[0], wake[1]}) ::close(fd);
}

TEST_CASE("the supervisor returns an agent's own exit code, and reaps every other child") {
  BlockedSignals blocked;
  const int epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  const auto watched = supervisor::watch_supervisor_signals(epoll_fd, kSignalTag);
  REQUIRE(watched.has_value());
  const int signal_fd = *watched;
  const pid_t other_child = ::fork();
  if (other_child == 0) ::_exit(9);
  const pid_t agent = ::fork();
  if (agent == 0) {
    ::usleep(100 * 1000);
    ::_exit(7);
  }
  supervisor::Supervision supervision;
  supervision.epoll_fd = epoll_fd;
  supervision.signal_fd = signal_fd;
  supervision.signal_tag = kSignalTag;
  supervision.agent = agent;
  supervision.forward = [](int) {};
  const auto status = supervisor::supervise_until_agent_ends(supervision);
  REQUIRE(status);
  CHECK(WIFEXITED(*status));
  CHECK(WEXITSTATUS(*status) == 7);
  // The other child was reaped by the loop, not left a zombie for this test to find.
  CHECK(::waitpid(other_child, nullptr, WNOHANG) == -1);
  ::close(epoll_fd);
  ::close(signal_fd);
}
