#include "plugins/sandbox-podman/impl/podman_command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/process_spawn.hpp"

namespace errand::podman {

namespace fs = std::filesystem;
using sdk::make_error;

namespace {

constexpr const char* kStandardPath =
    "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";

// Reads both pipes until each reaches end of file or the deadline passes; false on the deadline.
bool drain(int out_fd, int err_fd, CommandOutput& output,
           std::chrono::steady_clock::time_point deadline) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&output.out, &output.err};
  char buf[8192];
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    const int n = ::poll(fds, 2, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        fds[i].fd = -1;
      }
    }
  }
  return true;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> PodmanEnvironment::variables() const {
  return {{"HOME", home.string()},
          {"PATH", kStandardPath},
          {"LANG", "C.UTF-8"},
          {"XDG_RUNTIME_DIR", runtime_dir.string()},
          {"CONTAINERS_CONF", containers_conf.string()}};
}

PodmanEnvironment environment_for_this_account(const fs::path& containers_conf) {
  PodmanEnvironment env;
  env.containers_conf = containers_conf;
  const uid_t uid = ::getuid();
  std::vector<char> buf(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (::getpwuid_r(uid, &entry, buf.data(), buf.size(), &found) == 0 && found != nullptr)
    env.home = found->pw_dir;
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  env.runtime_dir = runtime != nullptr && *runtime != '\0'
                        ? fs::path(runtime)
                        : fs::path("/run/user") / std::to_string(uid);
  env.program = installed_program("podman");
  return env;
}

std::string installed_program(const std::string& name) {
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/bin"}) {
    const fs::path candidate = fs::path(dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

namespace {

// podman with its environment, every fd of the daemon's closed but those the caller adds as its
// 0, 1 and 2, run from / so no directory of the daemon's is held open or resolved against.
sdk::Result<common::SpawnRequest> podman_request(
    const PodmanEnvironment& env, const std::vector<std::string>& args,
    const std::vector<std::pair<std::string, std::string>>& extra) {
  if (env.program.empty())
    return make_error("podman is not installed", sdk::Error::Kind::not_found);
  common::SpawnRequest request;
  request.program = env.program.string();
  request.args = args;
  request.env = env.variables();
  request.env.insert(request.env.end(), extra.begin(), extra.end());
  request.working_dir = "/";
  return request;
}

}  // namespace

sdk::Result<CommandOutput> run_podman(
    const PodmanEnvironment& env, const std::vector<std::string>& args,
    std::chrono::milliseconds timeout,
    const std::vector<std::pair<std::string, std::string>>& extra) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return make_error("could not make a pipe for podman");
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return make_error("could not make a pipe for podman");
  }
  const int null = common::move_fd_at_least(::open("/dev/null", O_RDONLY | O_CLOEXEC), 3);
  for (int* fd : {&out[0], &out[1], &err[0], &err[1]}) *fd = common::move_fd_at_least(*fd, 3);
  auto request = podman_request(env, args, extra);
  if (request) request->fds = {{null, 0}, {out[1], 1}, {err[1], 2}};
  auto pid = request ? common::spawn_process(*request) : sdk::Result<pid_t>(request.error());
  ::close(out[1]);
  ::close(err[1]);
  if (null >= 0) ::close(null);
  if (!pid) {
    ::close(out[0]);
    ::close(err[0]);
    return pid.error();
  }
  CommandOutput output;
  if (!drain(out[0], err[0], output, std::chrono::steady_clock::now() + timeout)) {
    // podman is its own process group's leader (common/process_spawn.hpp), not yet reaped, so
    // the group is still its; a helper of its that holds the pipes goes with it.
    ::kill(-*pid, SIGKILL);
    ::kill(*pid, SIGKILL);
    output.timed_out = true;
    output.err += "\n(errand killed podman after " + std::to_string(timeout.count()) + " ms)";
  }
  ::close(out[0]);
  ::close(err[0]);
  int status = 0;
  while (::waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  output.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

sdk::Result<RunningPodman> start_podman(
    const PodmanEnvironment& env, const std::vector<std::string>& args,
    const std::vector<std::pair<std::string, std::string>>& extra) {
  auto request = podman_request(env, args, extra);
  if (!request) return request.error();
  return common::spawn_piped(std::move(*request));
}

namespace {
constexpr std::size_t kFailureTextMax = 1000;
}  // namespace

std::string failure_text(const CommandOutput& output) {
  auto text = output.err;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  while (!text.empty() && (text.front() == '\n' || text.front() == ' ')) text.erase(0, 1);
  // podman ends with the sentence that says what went wrong, so a long text keeps its end.
  if (text.size() > kFailureTextMax) text = "..." + text.substr(text.size() - kFailureTextMax);
  if (!text.empty()) return text;
  return output.exit_code < 0 ? "podman was killed"
                              : "podman exited " + std::to_string(output.exit_code);
}

}  // namespace errand::podman
