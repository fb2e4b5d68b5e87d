#include "common/setup_steps/program_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>

extern char** environ;

namespace errand::setup {

namespace {

constexpr const char* kSearchPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

std::vector<std::string> child_environment(const ProgramRun& run) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.rfind("PATH=", 0) == 0) continue;
    env.push_back(entry);
  }
  env.push_back(std::string("PATH=") + kSearchPath);
  for (const auto& extra : run.env) env.push_back(extra);
  return env;
}

}  // namespace

std::string file_tail(const std::filesystem::path& file, std::size_t lines) {
  std::ifstream in(file);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (last.size() > lines) last.pop_front();
  }
  std::string out;
  for (const auto& line : last) out += "    " + line + "\n";
  return out;
}

ProgramResult run_program(const ProgramRun& run, StepReport* report) {
  const std::string what = run.argv.empty() ? std::string("(nothing)") : run.argv.front();
  const int log_fd = ::open(run.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd < 0)
    throw StepFailed(run.doing,
                     "cannot open the log " + run.log.string() + ": " + std::strerror(errno),
                     "check that its directory exists and is writable by root");
  {
    const std::string header = "\n# errand: running";
    std::string line = header;
    for (const auto& arg : run.argv) line += " " + arg;
    line += "\n";
    if (::write(log_fd, line.data(), line.size()) < 0) {
      // The log is a convenience; the program runs all the same.
    }
  }
  int out_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(log_fd);
    throw StepFailed(run.doing, std::string("cannot make a pipe: ") + std::strerror(errno),
                     "try again");
  }
  std::vector<std::string> env = child_environment(run);
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(log_fd);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    throw StepFailed(run.doing, std::string("cannot fork: ") + std::strerror(errno), "try again");
  }
  if (child == 0) {
    const int null_fd = ::open("/dev/null", O_RDONLY);
    ::dup2(null_fd, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(log_fd, 2);
    ::setenv("PATH", kSearchPath, 1);
    std::vector<char*> argv;
    for (const auto& arg : run.argv) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& entry : env) envp.push_back(entry.data());
    envp.push_back(nullptr);
    ::execvpe(argv[0], argv.data(), envp.data());
    const std::string why = "errand: cannot run " + what + ": " + std::strerror(errno) + "\n";
    if (::write(2, why.data(), why.size()) < 0) {
    }
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  const auto started = std::chrono::steady_clock::now();
  auto next_progress = started + run.progress_every;
  std::string pending;
  char buffer[4096];
  ProgramResult result;
  auto take_line = [&](const std::string& line) {
    if (!run.keep_lines_starting.empty() && line.starts_with(run.keep_lines_starting)) {
      result.kept.push_back(line);
      return;
    }
    if (report != nullptr && report->relay(line)) return;
    const auto text = line + "\n";
    if (::write(log_fd, text.data(), text.size()) < 0) {
    }
  };
  for (;;) {
    pollfd p{out_pipe[0], POLLIN, 0};
    const auto now = std::chrono::steady_clock::now();
    const auto wait =
        std::chrono::duration_cast<std::chrono::milliseconds>(next_progress - now).count();
    const int ready = ::poll(&p, 1, static_cast<int>(std::max<long long>(wait, 0)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::steady_clock::now() - started)
                               .count();
      std::cout << "  ... still " << run.doing << " (" << seconds << " s; log: " << run.log.string()
                << ")" << std::endl;
      next_progress += run.progress_every;
      continue;
    }
    const auto n = ::read(out_pipe[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<std::size_t>(n));
    for (auto end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
      take_line(pending.substr(0, end));
      pending.erase(0, end + 1);
    }
  }
  if (!pending.empty()) take_line(pending);
  ::close(out_pipe[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  ::close(log_fd);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (result.exit_code != 0) result.output_tail = file_tail(run.log, 15);
  return result;
}

ProgramOutput capture_program(const std::vector<std::string>& argv) {
  ProgramOutput result;
  int out_pipe[2];
  if (argv.empty() || ::pipe2(out_pipe, O_CLOEXEC) != 0) return {127, {}};
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return {127, {}};
  }
  if (child == 0) {
    const int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(null_fd, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(null_fd, 2);
    ::setenv("PATH", kSearchPath, 1);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  char buffer[4096];
  for (;;) {
    const auto n = ::read(out_pipe[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.out.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(out_pipe[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

void run_program_or_fail(const ProgramRun& run, StepReport* report, const std::string& step,
                         const std::string& remedy) {
  const auto result = run_program(run, report);
  if (result.exit_code == 0) return;
  std::string command;
  for (const auto& arg : run.argv) command += (command.empty() ? "" : " ") + arg;
  throw StepFailed(step,
                   command + " exited with " + std::to_string(result.exit_code) +
                       "; the end of its log (" + run.log.string() + "):\n" + result.output_tail,
                   remedy);
}

}  // namespace errand::setup
