#include "core/setup/daemon_launch.hpp"

#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include "common/setup_steps/program_run.hpp"
#include "core/setup/errand_cgroup.hpp"

namespace errand::setup {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kStep = "starting the daemon";

fs::path self_executable() {
  std::error_code ec;
  auto self = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw StepFailed(std::string(kStep), "cannot read /proc/self/exe: " + ec.message(),
                     "check that /proc is mounted");
  return self;
}

// The daemon's environment, built from nothing as a service manager builds a unit's: where its
// configuration is, who it is, where it may make session cgroups (v2), and the plugin path an
// operator set for `errand up` itself.
std::vector<std::string> daemon_environment(const SetupContext& context, const Account& account,
                                            const CgroupSubtree& subtree) {
  std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin",
                                  "HOME=" + account.home.string(),
                                  "USER=" + account.name,
                                  "LOGNAME=" + account.name,
                                  "LANG=C.UTF-8",
                                  "ERRAND_CONFIG=" + context.host.config.string()};
  if (!subtree.sessions_root().empty())
    env.push_back("BAILEY_CGROUP_ROOT=" + subtree.sessions_root());
  for (const char* passed : {"ERRAND_PLUGIN_PATH", "ERRAND_WEB_ROOT"}) {
    if (const char* value = std::getenv(passed); value != nullptr && *value != '\0')
      env.push_back(std::string(passed) + "=" + value);
  }
  return env;
}

[[noreturn]] void child_fails(int report_fd, const std::string& why) {
  const std::string text = why + ": " + std::strerror(errno);
  if (::write(report_fd, text.data(), text.size()) < 0) {
  }
  ::_exit(127);
}

}  // namespace

std::optional<pid_t> running_daemon(const fs::path& pid_file) {
  std::ifstream in(pid_file);
  long pid = 0;
  if (!(in >> pid) || pid <= 0) return std::nullopt;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return std::nullopt;
  // A pid file outlives its process, and the number may have gone to another program since.
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  comm >> name;
  if (name != "errand") return std::nullopt;
  return static_cast<pid_t>(pid);
}

void launch_daemon(SetupContext& context) {
  const auto pid_file = context.host.run_dir / "errand.pid";
  const auto log_file = context.host.log_dir / "errand.log";
  if (const auto pid = running_daemon(pid_file)) {
    context.report.already("errand is running (pid " + std::to_string(*pid) + ", " +
                           pid_file.string() + ")");
    return;
  }
  const auto* account = context.account_or_null();
  const std::string what = "`errand run` as " + context.account_name + ", detached (log " +
                           log_file.string() + ", pid file " + pid_file.string() + ")";
  if (context.dry_run()) {
    context.report.changed("", "start " + what);
    return;
  }
  if (account == nullptr)
    throw StepFailed(std::string(kStep), "the account " + context.account_name + " does not exist",
                     "run `errand setup bailey` first");
  const auto subtree = errand_cgroup_subtree(context.host);
  const auto self = self_executable();
  std::error_code ec;
  fs::create_directories(context.host.run_dir, ec);
  const int log_fd = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
  if (log_fd < 0 || ::fchown(log_fd, account->uid, account->gid) != 0)
    throw StepFailed(std::string(kStep),
                     "cannot open " + log_file.string() + ": " + std::strerror(errno),
                     "check " + context.host.log_dir.string() + " (errand setup makes it)");
  auto env = daemon_environment(context, *account, subtree);
  // The child reports a failure before exec on this pipe; exec closes it (close-on-exec), so
  // an empty read means the daemon is running.
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0)
    throw StepFailed(std::string(kStep), std::string("cannot make a pipe: ") + std::strerror(errno),
                     "try again");
  const pid_t child = ::fork();
  if (child < 0)
    throw StepFailed(std::string(kStep), std::string("cannot fork: ") + std::strerror(errno),
                     "try again");
  if (child == 0) {
    ::close(report[0]);
    // Nothing errand up was given (a pipe to a terminal's pager, say) stays open in the daemon.
    ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
    if (::setsid() < 0) child_fails(report[1], "setsid");
    if (subtree.kind() != CgroupSubtree::Kind::none) {
      if (auto joined = subtree.join(0); !joined) {
        errno = 0;
        child_fails(report[1], joined.error().message);
      }
    }
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd < 0 || ::dup2(null_fd, 0) < 0 || ::dup2(log_fd, 1) < 0 || ::dup2(log_fd, 2) < 0)
      child_fails(report[1], "cannot set up the daemon's output");
    if (::chdir("/") != 0) child_fails(report[1], "chdir /");
    if (::initgroups(account->name.c_str(), account->gid) != 0 ||
        ::setresgid(account->gid, account->gid, account->gid) != 0 ||
        ::setresuid(account->uid, account->uid, account->uid) != 0)
      child_fails(report[1], "cannot become " + account->name);
    std::vector<char*> envp;
    for (auto& entry : env) envp.push_back(entry.data());
    envp.push_back(nullptr);
    std::string program = self.string();
    std::string run = "run";
    char* argv[] = {program.data(), run.data(), nullptr};
    ::execve(program.c_str(), argv, envp.data());
    child_fails(report[1], "cannot run " + program);
  }
  ::close(report[1]);
  ::close(log_fd);
  std::string failure;
  char buffer[512];
  for (ssize_t n; (n = ::read(report[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    failure.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(report[0]);
  if (!failure.empty()) {
    ::waitpid(child, nullptr, 0);
    throw StepFailed(std::string(kStep), failure, "fix that, then run `errand up` again");
  }
  // A daemon that refuses its configuration exits at once; give it a moment to do so, so the
  // operator hears of it here rather than from the log later.
  for (int i = 0; i < 20; ++i) {
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) {
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      throw StepFailed(std::string(kStep),
                       "errand run exited with " + std::to_string(code) +
                           " at once; the end of its log (" + log_file.string() + "):\n" +
                           file_tail(log_file, 15),
                       "fix what the log names (`errand help run` explains the exit codes), "
                       "then run `errand up` again");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::ofstream(pid_file) << child << '\n';
  context.report.changed("started " + what + ", pid " + std::to_string(child), "start " + what);
}

}  // namespace errand::setup
