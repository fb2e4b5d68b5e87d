#pragma once

// Running the programs a setup step needs (apt-get, useradd, the host scripts, the image build):
// their output goes to a log file, a step line they print ("done: ...") is relayed to the
// report, a progress line is printed while a long one runs, and a failure carries the log's
// tail.

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "common/setup_steps/step_report.hpp"

namespace errand::setup {

struct ProgramRun {
  ProgramRun(std::vector<std::string> argv_, std::string doing_, std::filesystem::path log_,
             std::vector<std::string> env_ = {})
      : argv(std::move(argv_)),
        doing(std::move(doing_)),
        log(std::move(log_)),
        env(std::move(env_)) {}

  std::vector<std::string> argv;  // argv[0] an absolute path, or a name found in PATH
  // What it is doing, for the progress line: "installing podman, runc" -> "still installing
  // podman, runc (45 s; log: /var/log/errand/setup.log)".
  std::string doing;
  std::filesystem::path log;
  // Extra NAME=value entries for the child's environment (it inherits this process's, with
  // PATH including the sbin directories).
  std::vector<std::string> env;
  std::chrono::seconds progress_every{12};
  // Lines of stdout starting with this (when not empty) are kept for the caller, not logged: what
  // a program says back to errand rather than to the operator.
  std::string keep_lines_starting;
};

struct ProgramResult {
  int exit_code = -1;             // 128 + signal when killed
  std::string output_tail;        // the log's last lines, for a failure's message
  std::vector<std::string> kept;  // the lines ProgramRun::keep_lines_starting chose
};

// Runs to completion. Lines of stdout that are step lines go to report (when not null); every
// other line of stdout and stderr is appended to run.log. Throws StepFailed when the program
// cannot be started at all.
ProgramResult run_program(const ProgramRun& run, StepReport* report);

// The same, and a StepFailed naming `step`, the exit code, the log's tail and `remedy` when it
// does not exit 0.
void run_program_or_fail(const ProgramRun& run, StepReport* report, const std::string& step,
                         const std::string& remedy);

// A short query (dpkg-query, systemctl is-enabled): its exit code and stdout, stderr dropped.
// exit_code is 127 when the program cannot be run.
struct ProgramOutput {
  int exit_code = -1;
  std::string out;
};
ProgramOutput capture_program(const std::vector<std::string>& argv);

// The last `lines` lines of a file.
std::string file_tail(const std::filesystem::path& file, std::size_t lines);

}  // namespace errand::setup
