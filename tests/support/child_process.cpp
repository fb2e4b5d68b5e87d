#include "tests/support/child_process.hpp"

#include "tests/support/poll_until.hpp"
#include "tests/support/temp_dir.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <stdexcept>
#include <thread>

namespace errand::test {

namespace {

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

ChildProcess::ChildProcess(std::vector<std::string> argv, std::vector<std::string> environment,
                           const std::filesystem::path& output_dir) {
  static int counter = 0;
  const auto tag = std::to_string(::getpid()) + "-" + std::to_string(++counter);
  out_path_ = output_dir / ("stdout-" + tag);
  err_path_ = output_dir / ("stderr-" + tag);
  const int out_fd = ::open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int err_fd = ::open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out_fd < 0 || err_fd < 0) throw std::runtime_error("cannot create output files");
  auto args = c_strings(argv);
  auto env = c_strings(environment);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    ::dup2(null_fd, STDIN_FILENO);
    ::execve(args[0], args.data(), env.data());
    ::_exit(127);
  }
  ::close(out_fd);
  ::close(err_fd);
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exit_code_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

void ChildProcess::signal(int signal) const {
  if (pid_ > 0 && !exit_code_) ::kill(pid_, signal);
}

std::optional<int> ChildProcess::wait_for(std::chrono::milliseconds timeout) {
  if (exit_code_) return exit_code_;
  poll_until(
      [&] {
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) != pid_) return false;
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return true;
      },
      timeout, std::chrono::milliseconds(20));
  return exit_code_;
}

bool ChildProcess::wait_for_output(const std::string& needle, std::chrono::milliseconds timeout,
                                   bool in_stderr) const {
  return poll_until([&] { return (in_stderr ? err() : out()).find(needle) != std::string::npos; },
                    timeout, std::chrono::milliseconds(20));
}

std::string ChildProcess::out() const {
  return read_file(out_path_);
}
std::string ChildProcess::err() const {
  return read_file(err_path_);
}

Finished run_to_end(std::vector<std::string> argv, std::vector<std::string> environment,
                    const std::filesystem::path& output_dir, std::chrono::milliseconds timeout) {
  ChildProcess child(std::move(argv), std::move(environment), output_dir);
  const auto code = child.wait_for(timeout);
  Finished finished;
  finished.exit_code = code ? *code : -1;
  finished.out = child.out();
  finished.err = child.err();
  return finished;
}

}  // namespace errand::test
