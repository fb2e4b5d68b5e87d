#include "core/daemon/serve_bridge.hpp"

#include "common/unique_fd.hpp"
#include "core/config/problem.hpp"
#include "core/daemon/configuration_source.hpp"
#include "core/daemon/exit_codes.hpp"
#include "core/daemon/serve_runner_settings.hpp"

#include <poll.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>

namespace errand::daemon {

namespace {

// Writes all of data (a pipe or the socket); false when the other end is gone.
bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const auto put = ::write(fd, data, size);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    data += put;
    size -= static_cast<std::size_t>(put);
  }
  return true;
}

int connect_to(const std::filesystem::path& path) {
  sockaddr_un address{};
  if (path.native().size() >= sizeof address.sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.native().size());
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

// Copies stdin to the socket and the socket to stdout. Stdin's end is passed on as a half
// close, so the runner still answers; the runner's close ends the bridge.
int copy_both_ways(int socket_fd) {
  std::array<char, 64 * 1024> buffer{};
  bool stdin_open = true;
  for (;;) {
    std::array<pollfd, 2> fds{pollfd{socket_fd, POLLIN, 0},
                              pollfd{stdin_open ? STDIN_FILENO : -1, POLLIN, 0}};
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return kExitRuntimeFailure;
    }
    if (fds[0].revents != 0) {
      const auto got = ::read(socket_fd, buffer.data(), buffer.size());
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return got == 0 ? kExitStopped : kExitRuntimeFailure;
      if (!write_all(STDOUT_FILENO, buffer.data(), static_cast<std::size_t>(got)))
        return kExitRuntimeFailure;
    }
    if (stdin_open && fds[1].revents != 0) {
      const auto got = ::read(STDIN_FILENO, buffer.data(), buffer.size());
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        stdin_open = false;
        ::shutdown(socket_fd, SHUT_WR);
      } else if (!write_all(socket_fd, buffer.data(), static_cast<std::size_t>(got))) {
        // The runner stopped reading; what it still sends is read until it closes.
        stdin_open = false;
      }
    }
  }
}

}  // namespace

int bridge_to_runner(const RunEnvironment& env) {
  // A reader gone (ssh's end or the runner) is a write error here, not a signal that kills the
  // bridge before it can say so.
  ::signal(SIGPIPE, SIG_IGN);
  // Stdout carries the protocol, so anything said goes to stderr.
  auto log = std::make_shared<spdlog::logger>("errand serve --connect",
                                              std::make_shared<spdlog::sinks::stderr_sink_mt>());
  log->set_level(spdlog::level::warn);
  const auto source = ConfigurationSource::discover(env, *log);
  auto loaded = source.load();
  if (!loaded) {
    std::cerr << "errand serve --connect: " << config::format_problems(loaded.error()) << "\n";
    return kExitRefused;
  }
  const auto socket = runner_settings_from(loaded->effective).socket;
  const common::UniqueFd fd(connect_to(socket));
  if (fd.get() < 0) {
    std::cerr << "errand serve --connect: cannot reach the runner at " << socket.string() << " ("
              << std::strerror(errno) << "); is `errand serve` running there?\n";
    return kExitRefused;
  }
  return copy_both_ways(fd.get());
}

}  // namespace errand::daemon
