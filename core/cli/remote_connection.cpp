#include "core/cli/remote_connection.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "common/process_spawn.hpp"

extern char** environ;

namespace errand::cli {

namespace {

// How long a closed ssh gets to exit before it is killed.
constexpr int kSshExitWaitMs = 3000;

sdk::Result<int> connect_unix_socket(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path))
    return sdk::refusal("the runner socket path " + path + " is too long");
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return sdk::make_error(std::string("socket: ") + std::strerror(errno));
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    const int error = errno;
    ::close(fd);
    return sdk::make_error("could not reach the local runner at " + path + ": " +
                               std::strerror(error) + " (is `errand serve` running?)",
                           sdk::Error::Kind::unavailable);
  }
  return fd;
}

// This process's environment, for ssh: its agent socket, its config, its HOME.
std::vector<std::pair<std::string, std::string>> own_environment() {
  std::vector<std::pair<std::string, std::string>> out;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    out.emplace_back(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  return out;
}

int wait_status_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

std::string caller_program() {
  return std::string("errand ") + ERRAND_VERSION;
}

sdk::Result<RunnerConnection> RunnerConnection::open(const PeerChoice& where) {
  auto peer = parse_peer(where.peer);
  if (!peer) return peer.error();
  RunnerConnection out;
  out.link_.peer = peer->name;
  out.link_.program = caller_program();
  if (peer->kind == PeerKind::local) {
    auto path = local_socket_path(where.socket, std::getenv("ERRAND_RUNNER_SOCKET"));
    if (!path) return path.error();
    auto fd = connect_unix_socket(*path);
    if (!fd) return fd.error();
    out.link_.read_fd = *fd;
    out.link_.write_fd = *fd;
    return out;
  }
  const auto ssh = ssh_invocation_from_environment(*peer);
  common::SpawnRequest request{.program = ssh.program,
                               .args = ssh.args,
                               .env = own_environment(),
                               .fds = {},
                               .close_from = 3,
                               .working_dir = {},
                               .search_path = ssh.program.find('/') == std::string::npos,
                               .pipe_stderr = false};
  auto spawned = common::spawn_piped(std::move(request));
  if (!spawned)
    return sdk::make_error("could not start " + ssh.program + ": " + spawned.error().message);
  out.ssh_pid_ = spawned->pid;
  out.ssh_pidfd_ = spawned->pidfd;
  out.link_.read_fd = spawned->stdout_fd;
  out.link_.write_fd = spawned->stdin_fd;
  return out;
}

RunnerConnection::RunnerConnection(RunnerConnection&& other) noexcept
    : link_(std::move(other.link_)),
      ssh_pid_(other.ssh_pid_),
      ssh_pidfd_(other.ssh_pidfd_),
      ssh_status_(other.ssh_status_) {
  other.link_.read_fd = -1;
  other.link_.write_fd = -1;
  other.ssh_pid_ = -1;
  other.ssh_pidfd_ = -1;
}

RunnerConnection::~RunnerConnection() {
  close();
}

std::optional<int> RunnerConnection::close() {
  if (link_.write_fd >= 0 && link_.write_fd != link_.read_fd) ::close(link_.write_fd);
  if (link_.read_fd >= 0) ::close(link_.read_fd);
  link_.read_fd = -1;
  link_.write_fd = -1;
  if (ssh_pid_ > 0) {
    // With its stdin closed ssh ends the session and exits; one that hangs is not waited on.
    pollfd exited{.fd = ssh_pidfd_, .events = POLLIN, .revents = 0};
    if (::poll(&exited, 1, kSshExitWaitMs) <= 0) ::kill(ssh_pid_, SIGKILL);
    int status = 0;
    while (::waitpid(ssh_pid_, &status, 0) < 0 && errno == EINTR) {
    }
    ssh_status_ = wait_status_code(status);
    ::close(ssh_pidfd_);
    ssh_pid_ = -1;
    ssh_pidfd_ = -1;
  }
  return ssh_status_;
}

std::optional<std::string> unreachable_sentence(const std::string& peer,
                                                std::optional<int> ssh_status) {
  if (!ssh_status || *ssh_status == 0) return std::nullopt;
  return "could not reach " + peer + " (ssh exited " + std::to_string(*ssh_status) + ")";
}

}  // namespace errand::cli
