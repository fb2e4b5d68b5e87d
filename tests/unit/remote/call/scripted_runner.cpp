#include "tests/unit/remote/call/scripted_runner.hpp"

#include "core/remote/jobs/job_id.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <stdexcept>

namespace errand::test {

namespace {

constexpr int kScriptPatienceMs = 10'000;

}  // namespace

std::optional<remote::wire::Message> RunnerEnd::receive() {
  for (;;) {
    auto frame = reader_.next();
    if (!frame) {
      note("the caller's stream broke the framing: " + frame.error().message);
      return std::nullopt;
    }
    if (*frame) {
      auto message = remote::wire::decode_message(**frame);
      if (!message) {
        note("the caller sent a message that does not decode: " + message.error().message);
        return std::nullopt;
      }
      return std::move(*message);
    }
    pollfd ready{.fd = fd_, .events = POLLIN, .revents = 0};
    if (::poll(&ready, 1, kScriptPatienceMs) <= 0) {
      note("the caller sent nothing for ten seconds");
      return std::nullopt;
    }
    std::array<char, 64 * 1024> buffer;
    const ssize_t got = ::read(fd_, buffer.data(), buffer.size());
    if (got <= 0) return std::nullopt;  // the caller hung up
    reader_.feed(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
  }
}

void RunnerEnd::send(const remote::wire::Message& message) {
  send_bytes(remote::wire::encode_message(message));
}

void RunnerEnd::send_bytes(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t wrote = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) {
      note("the runner could not send: the caller's end is gone");
      return;
    }
    bytes.remove_prefix(static_cast<std::size_t>(wrote));
  }
}

void RunnerEnd::hang_up() {
  ::shutdown(fd_, SHUT_RDWR);
}

ScriptedRunner::ScriptedRunner(std::function<void(RunnerEnd&)> script) : end_(-1) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw std::runtime_error("socketpair failed");
  caller_.reset(fds[0]);
  runner_.reset(fds[1]);
  end_ = RunnerEnd(runner_.get());
  thread_ = std::thread([this, script = std::move(script)] { script(end_); });
}

remote::RunnerLink ScriptedRunner::link() const {
  return remote::RunnerLink{.read_fd = caller_.get(),
                            .write_fd = caller_.get(),
                            .peer = "box",
                            .program = "errand test caller"};
}

void ScriptedRunner::finish() {
  // Shut down rather than closed: the caller's code may still hold the number.
  if (caller_) ::shutdown(caller_.get(), SHUT_RDWR);
  if (thread_.joinable()) thread_.join();
}

std::string fresh_job_id() {
  return remote::make_job_id(
      std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now()));
}

bool greet(RunnerEnd& runner) {
  if (!runner.receive_a<remote::wire::Hello>("the caller's hello")) return false;
  runner.send(remote::wire::Hello{.protocol = remote::wire::kProtocolVersion,
                                  .program = "scripted runner"});
  return true;
}

std::optional<remote::wire::Admit> greet_and_take_admit(RunnerEnd& runner) {
  if (!greet(runner)) return std::nullopt;
  return runner.receive_a<remote::wire::Admit>("the caller's admit");
}

}  // namespace errand::test
