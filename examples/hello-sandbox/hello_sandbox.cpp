// sandbox-hello: a sandbox backend written as errand's own are, on the kit errand-dev ships. It
// starts the agent as an ordinary child of the daemon and confines nothing, and its probe says
// so, one gap a guarantee, so errand refuses to start with it unless told to accept the gaps. What
// it shows is the shape: a backend writes how it sees the agent's end, how it stops it and what it
// cleans up; the kit's Lifecycle does the rest (one stop however many ask, the disk budget, the end
// told once it is cleaned up), and ActiveSessions keeps the registry of what runs.

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <errand/sdk/plugin.hpp>

#include "common/process_spawn.hpp"
#include "common/sandbox_process/active_sessions.hpp"
#include "common/sandbox_process/lifecycle.hpp"

namespace {

namespace asio = boost::asio;
namespace sdk = errand::sdk;
namespace sp = errand::sandbox_process;
using namespace std::chrono_literals;

// One agent, watched through its pidfd.
class HelloProcess final : public sp::Lifecycle {
 public:
  HelloProcess(asio::any_io_executor executor, std::shared_ptr<spdlog::logger> log,
               const std::string& session_id, errand::common::PipedProcess child,
               std::chrono::milliseconds grace)
      : Lifecycle(asio::make_strand(executor), std::move(log), "session " + session_id,
                  {child.pid, child.stdin_fd, child.stdout_fd, child.stderr_fd}, std::nullopt,
                  grace),
        child_(child),
        pidfd_(strand(), child.pidfd) {
    child_.pidfd = -1;  // pidfd_ owns it now
  }
  ~HelloProcess() override { child_.close_all(); }

  void abandon() noexcept override { send(SIGKILL); }

 private:
  asio::awaitable<sdk::ExitInfo> await_exit() override {
    boost::system::error_code ec;
    co_await pidfd_.async_wait(asio::posix::stream_descriptor::wait_read,
                               asio::redirect_error(asio::use_awaitable, ec));
    siginfo_t info{};
    ::waitid(static_cast<idtype_t>(P_PIDFD), static_cast<id_t>(pidfd_.native_handle()), &info,
             WEXITED);
    sdk::ExitInfo exit;
    if (info.si_code == CLD_EXITED) {
      exit.exit_code = info.si_status;
      exit.detail = "the agent exited with " + std::to_string(info.si_status);
    } else {
      exit.signal = info.si_status;
      exit.detail = "the agent was killed by signal " + std::to_string(info.si_status);
    }
    co_return exit;
  }

  // Nothing was made for the agent, so nothing is left to remove.
  asio::awaitable<sdk::Result<void>> clean_up() override { co_return sdk::Result<void>{}; }

  asio::awaitable<std::optional<sdk::ExitInfo>> stop_steps(
      std::chrono::milliseconds grace) override {
    // Each wait's answer is named before it is tested: GCC 12 mis-builds an if whose condition
    // starts with co_await (this stop crashed so; tests/tools/coroutine-condition-check).
    send(SIGTERM);
    const bool ended_by_term = co_await exited_within(grace);
    if (ended_by_term) co_return std::nullopt;
    send(SIGKILL);
    const bool ended_by_kill = co_await exited_within(5s);
    if (ended_by_kill) co_return std::nullopt;
    co_return gave_up_exit("the agent did not end after SIGKILL");
  }

  // Through the pidfd, so a signal can never reach a process that took a reaped agent's pid.
  void send(int sig) noexcept {
    ::syscall(SYS_pidfd_send_signal, pidfd_.native_handle(), sig, nullptr, 0);
  }

  errand::common::PipedProcess child_;
  asio::posix::stream_descriptor pidfd_;
};

class HelloSandbox final : public sdk::SandboxBackend {
 public:
  explicit HelloSandbox(const sdk::HostServices& host) : executor_(host.executor), log_(host.log) {}
  ~HelloSandbox() override { active_.abandon_all(); }

  sdk::EnforcementReport probe(const sdk::SandboxPolicy&) noexcept override {
    sdk::EnforcementReport report;
    report.backend = "hello";
    report.summary = "an example that runs the agent unconfined, as a child of the daemon";
    for (const char* guarantee : {"file system isolation", "network isolation", "process isolation",
                                  "resource limits", "syscall filter"})
      report.gaps.push_back({guarantee, "sandbox-hello is an example and confines nothing"});
    report.capabilities.agent_from_host_install = true;
    return report;
  }

  asio::awaitable<sdk::Result<std::unique_ptr<sdk::SandboxProcess>>> launch(
      sdk::LaunchSpec spec) override {
    if (spec.argv.empty()) co_return sdk::refusal("sandbox-hello needs the agent's command");
    if (active_.is_live(spec.session_id))
      co_return sdk::refusal("session " + spec.session_id + " already runs");
    errand::common::SpawnRequest request{.program = spec.argv.front(),
                                         .args = {spec.argv.begin() + 1, spec.argv.end()},
                                         .env = spec.env,
                                         .fds = {},
                                         .close_from = 3,
                                         .working_dir = spec.project_dir.string(),
                                         .search_path = true};
    auto child = errand::common::spawn_piped(std::move(request));
    if (!child) co_return child.error();
    auto state = std::make_shared<HelloProcess>(executor_, log_, spec.session_id, *child,
                                                spec.policy.limits.grace);
    co_return active_.adopt(spec.session_id, state);
  }

  // Every agent this backend starts is the daemon's child, and ends with it.
  sdk::SweepReport sweep_orphans() noexcept override { return {}; }

 private:
  asio::any_io_executor executor_;
  std::shared_ptr<spdlog::logger> log_;
  sp::ActiveSessions<HelloProcess> active_;
};

}  // namespace

ERRAND_PLUGIN(HelloSandbox, "sandbox-hello", "0.1.0")
