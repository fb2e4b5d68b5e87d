#include "tests/e2e/remote/serve_caller.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <csignal>
#include <cstring>
#include <utility>

#include "core/remote/jobs/job_id.hpp"
#include "core/remote/jobs/job_record.hpp"
#include "tests/support/result_checks.hpp"

namespace remote_e2e {

namespace remote = errand::remote;
using errand::test::ok;

ServeCaller ServeCaller::connect(const std::string& socket_path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  return ServeCaller(fd, fd, -1);
}

ServeCaller ServeCaller::bridge(const std::vector<std::string>& argv,
                                const std::vector<std::string>& env) {
  int to_child[2];
  int from_child[2];
  REQUIRE(::pipe2(to_child, O_CLOEXEC) == 0);
  REQUIRE(::pipe2(from_child, O_CLOEXEC) == 0);
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  std::vector<char*> vars;
  for (const auto& var : env) vars.push_back(const_cast<char*>(var.c_str()));
  vars.push_back(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(to_child[0], STDIN_FILENO);
    ::dup2(from_child[1], STDOUT_FILENO);
    ::execve(args[0], args.data(), vars.data());
    ::_exit(127);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  return ServeCaller(to_child[1], from_child[0], pid);
}

ServeCaller::ServeCaller(ServeCaller&& other) noexcept
    : write_fd_(std::exchange(other.write_fd_, -1)),
      read_fd_(std::exchange(other.read_fd_, -1)),
      child_(std::exchange(other.child_, -1)) {}

ServeCaller::~ServeCaller() {
  if (child_ > 0) ::kill(child_, SIGKILL);
  finish();
  if (read_fd_ >= 0) ::close(read_fd_);
}

void ServeCaller::send(const wire::Message& message) {
  const auto bytes = wire::encode_message(message);
  std::size_t at = 0;
  while (at < bytes.size()) {
    const auto put = child_ > 0
                         ? ::write(write_fd_, bytes.data() + at, bytes.size() - at)
                         : ::send(write_fd_, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
    if (put <= 0) return;  // the runner closed; the next read says so
    at += static_cast<std::size_t>(put);
  }
}

std::optional<wire::Message> ServeCaller::next() {
  for (;;) {
    auto frame = reader_.next();
    REQUIRE(ok(frame));
    if (*frame) {
      auto message = wire::decode_message(**frame);
      REQUIRE(ok(message));
      return std::move(*message);
    }
    pollfd readable{read_fd_, POLLIN, 0};
    if (::poll(&readable, 1, 60'000) <= 0) return std::nullopt;
    char buffer[65536];
    const auto got = ::read(read_fd_, buffer, sizeof buffer);
    if (got <= 0) return std::nullopt;
    reader_.feed(std::string_view(buffer, static_cast<std::size_t>(got)));
  }
}

std::optional<wire::Message> ServeCaller::greet() {
  send(wire::Hello{wire::kProtocolVersion, "serve e2e test"});
  return next();
}

std::optional<int> ServeCaller::finish() {
  if (write_fd_ >= 0 && write_fd_ != read_fd_) ::close(write_fd_);
  if (write_fd_ == read_fd_ && write_fd_ >= 0) ::shutdown(write_fd_, SHUT_WR);
  write_fd_ = write_fd_ == read_fd_ ? write_fd_ : -1;
  if (child_ <= 0) return std::nullopt;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    const pid_t done = ::waitpid(child_, &status, WNOHANG);
    if (done == child_) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(child_, SIGKILL);
      ::waitpid(child_, &status, 0);
      break;
    }
    ::usleep(20'000);
  }
  child_ = -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

JobStream read_to_end(ServeCaller& caller) {
  JobStream seen;
  for (;;) {
    auto message = caller.next();
    if (!message) return seen;
    if (auto* output = std::get_if<wire::Output>(&*message)) {
      (output->stream == wire::OutputStream::standard_error ? seen.err : seen.out) += output->data;
    } else if (auto* end = std::get_if<wire::End>(&*message)) {
      seen.end = *end;
      return seen;
    } else if (auto* refused = std::get_if<wire::Refused>(&*message)) {
      seen.refused = *refused;
      return seen;
    }
  }
}

std::string fresh_job_id() {
  static int bump = 0;
  const auto now = std::chrono::time_point_cast<std::chrono::milliseconds>(
      remote::JobClock::now() + std::chrono::milliseconds(++bump));
  return remote::make_job_id(remote::JobIdTime(now.time_since_epoch()));
}

}  // namespace remote_e2e
