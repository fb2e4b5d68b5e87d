#include "tests/unit/delegate_command/loopback_broker.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "tests/support/temp_dir.hpp"

namespace delegate_test {

namespace {

// Reads with a deadline, so a delegate that never sends fails the test instead of hanging it.
bool read_some(int fd, std::string& into) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 20000) <= 0) return false;
  char buffer[65536];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n <= 0) return false;
  into.append(buffer, static_cast<std::size_t>(n));
  return true;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

LoopbackBroker::LoopbackBroker(std::string reply) : reply_(std::move(reply)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::listen(listen_fd_, 4) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    throw std::runtime_error("the loopback broker could not listen");
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { serve(); });
}

LoopbackBroker::~LoopbackBroker() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  ::close(listen_fd_);
}

std::string LoopbackBroker::proxy_url(const std::string& user,
                                      const std::string& credential) const {
  return "http://" + user + ":" + credential + "@127.0.0.1:" + std::to_string(port_);
}

void LoopbackBroker::finish() {
  if (thread_.joinable()) thread_.join();
}

void LoopbackBroker::stop() {
  stopping_ = true;
  finish();
}

std::string LoopbackBroker::header(const std::string& name) const {
  const std::string wanted = lower(name) + ":";
  std::size_t start = head_.find("\r\n");
  while (start != std::string::npos && start + 2 < head_.size()) {
    const auto end = head_.find("\r\n", start + 2);
    const auto line = head_.substr(start + 2, end - start - 2);
    if (lower(line.substr(0, wanted.size())) == wanted) {
      auto value = line.substr(wanted.size());
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      return value;
    }
    start = end;
  }
  return {};
}

void LoopbackBroker::serve() {
  int fd = -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!stopping_ && fd < 0 && std::chrono::steady_clock::now() < deadline) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) == 1) fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  }
  if (fd < 0) return;
  ++connections_;
  std::string in;
  while (in.find("\r\n\r\n") == std::string::npos && read_some(fd, in)) {
  }
  const auto blank = in.find("\r\n\r\n");
  if (blank != std::string::npos) {
    head_ = in.substr(0, blank + 2);
    body_ = in.substr(blank + 4);
    const auto length_text = header("Content-Length");
    const std::size_t length = length_text.empty() ? 0 : std::stoul(length_text);
    while (body_.size() < length && read_some(fd, body_)) {
    }
  }
  std::string_view reply = reply_;
  while (!reply.empty()) {
    const ssize_t n = ::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
    if (n <= 0) break;
    reply.remove_prefix(static_cast<std::size_t>(n));
  }
  ::shutdown(fd, SHUT_WR);
  ::close(fd);
}

Ran run_program(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
                const std::filesystem::path& stdin_path, const std::filesystem::path& dir) {
  const auto out_path = dir / "stdout";
  const auto err_path = dir / "stderr";
  std::vector<char*> args, env;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : environment) env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int in = ::open(stdin_path.c_str(), O_RDWR | O_NOCTTY);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0) ::_exit(126);
    ::dup2(in, STDIN_FILENO);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::execve(args[0], args.data(), env.data());
    ::_exit(127);
  }
  Ran ran;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ran.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  ran.out = errand::test::read_file(out_path);
  ran.err = errand::test::read_file(err_path);
  return ran;
}

}  // namespace delegate_test
