#include "common/program_exchange.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <string_view>

#include "common/ignore_sigpipe.hpp"
#include "common/process_spawn.hpp"

extern char** environ;

namespace errand::common {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kErrTail = 4096;

std::vector<std::pair<std::string, std::string>> inherited_environment() {
  std::vector<std::pair<std::string, std::string>> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    env.emplace_back(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  return env;
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

void close_pipe(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

int milliseconds_until(Clock::time_point end) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

// Kills and reaps a child that is to be given up on, so no zombie is left behind.
void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

sdk::Result<ProgramAnswer> exchange_with_program(const ProgramExchange& exchange) {
  // The helper may exit before reading all its input; that must be an EPIPE here, never a
  // signal that ends this process.
  ignore_sigpipe_once();
  SpawnRequest request;
  request.program = exchange.program;
  request.args = exchange.args;
  request.env = inherited_environment();
  request.pipe_stderr = !exchange.share_stderr;
  auto spawned = spawn_piped(std::move(request));
  if (!spawned) return spawned.error();
  PipedProcess child = *spawned;
  ::fcntl(child.stdin_fd, F_SETFL, ::fcntl(child.stdin_fd, F_GETFL) | O_NONBLOCK);
  if (exchange.input.empty()) close_pipe(child.stdin_fd);

  const auto end = Clock::now() + exchange.deadline;
  ProgramAnswer answer;
  std::size_t written = 0;
  std::string refusal;
  std::array<char, 16384> buffer{};
  while (child.stdout_fd >= 0 || child.stderr_fd >= 0) {
    std::array<pollfd, 3> watched{};
    nfds_t count = 0;
    for (const int fd : {child.stdout_fd, child.stderr_fd})
      if (fd >= 0) watched[count++] = {fd, POLLIN, 0};
    if (child.stdin_fd >= 0) watched[count++] = {child.stdin_fd, POLLOUT, 0};
    const int ready = ::poll(watched.data(), count, milliseconds_until(end));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      refusal = exchange.program + " did not answer within " +
                std::to_string(exchange.deadline.count()) + " ms";
      break;
    }
    for (nfds_t i = 0; i < count; ++i) {
      if (watched[i].revents == 0) continue;
      const int fd = watched[i].fd;
      if (fd == child.stdin_fd) {
        const auto n =
            ::write(fd, exchange.input.data() + written, exchange.input.size() - written);
        if (n > 0) written += static_cast<std::size_t>(n);
        // EPIPE: it stopped reading; what it answers says whether that was a failure.
        if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == exchange.input.size())
          close_pipe(child.stdin_fd);
        continue;
      }
      const auto n = ::read(fd, buffer.data(), buffer.size());
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) {
        close_pipe(fd == child.stdout_fd ? child.stdout_fd : child.stderr_fd);
        continue;
      }
      if (fd == child.stdout_fd) {
        answer.out.append(buffer.data(), static_cast<std::size_t>(n));
      } else {
        answer.err_tail.append(buffer.data(), static_cast<std::size_t>(n));
        if (answer.err_tail.size() > kErrTail)
          answer.err_tail.erase(0, answer.err_tail.size() - kErrTail);
      }
    }
    if (answer.out.size() > exchange.max_output) {
      refusal =
          exchange.program + " wrote more than " + std::to_string(exchange.max_output) + " bytes";
      break;
    }
  }
  if (!refusal.empty()) {
    kill_and_reap(child.pid);
    child.close_all();
    return sdk::make_error(std::move(refusal));
  }
  close_pipe(child.stdin_fd);
  // Both its outputs are closed, so it has exited or is about to; the deadline still holds.
  pollfd exited{child.pidfd, POLLIN, 0};
  while (::poll(&exited, 1, milliseconds_until(end)) < 0 && errno == EINTR) {
  }
  if ((exited.revents & POLLIN) == 0) {
    kill_and_reap(child.pid);
    child.close_all();
    return sdk::make_error(exchange.program + " closed its output but did not exit within " +
                           std::to_string(exchange.deadline.count()) + " ms");
  }
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  answer.exit_code = exit_code_of(status);
  child.close_all();
  return answer;
}

}  // namespace errand::common
