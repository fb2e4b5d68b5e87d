#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace errand::cli {

// Each returns the process exit code; args are what follows the command's name.
int run_command(const std::vector<std::string>& args);
int plugins_command(const std::vector<std::string>& args);
int config_command(const std::vector<std::string>& args);
int threads_command(const std::vector<std::string>& args);
int web_access_command(const std::vector<std::string>& args);
int setup_command(const std::vector<std::string>& args);
int up_command(const std::vector<std::string>& args);
int reference_command(const std::vector<std::string>& args);
// remote-run, the caller's side. remote_run_command's args are everything after the program's
// name: `[OPTIONS] -- CMD [ARG...]`.
int remote_run_command(const std::vector<std::string>& args);
int remote_attach_command(const std::vector<std::string>& args);
int remote_ps_command(const std::vector<std::string>& args);
int remote_kill_command(const std::vector<std::string>& args);
int remote_jobs_command(const std::vector<std::string>& args);
int serve_command(const std::vector<std::string>& args);

// The help for one command, or the overview when command is empty or unknown.
void print_help(std::ostream& out, const std::string& command);

// The manual page errand(1) in roff, from the same table as print_help.
void print_man_page(std::ostream& out);

}  // namespace errand::cli
