#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace errand::test {

// A program run the way an operator runs it: its own environment (nothing inherited but what
// the test names), stdout and stderr captured to files the test reads while it runs.
class ChildProcess {
 public:
  ChildProcess(std::vector<std::string> argv, std::vector<std::string> environment,
               const std::filesystem::path& output_dir);
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();  // kills the child if it still runs

  int pid() const noexcept { return pid_; }
  void signal(int signal) const;
  // The exit code (128 + signal when killed), or nothing when it is still running at the end.
  std::optional<int> wait_for(std::chrono::milliseconds timeout);
  bool wait_for_output(const std::string& needle, std::chrono::milliseconds timeout,
                       bool in_stderr = true) const;

  std::string out() const;
  std::string err() const;

 private:
  int pid_ = -1;
  std::optional<int> exit_code_;
  std::filesystem::path out_path_, err_path_;
};

// Runs to completion with a deadline; fails the test's expectations through the exit code.
struct Finished {
  int exit_code = -1;
  std::string out, err;
};
Finished run_to_end(std::vector<std::string> argv, std::vector<std::string> environment,
                    const std::filesystem::path& output_dir,
                    std::chrono::milliseconds timeout = std::chrono::seconds(60));

}  // namespace errand::test
