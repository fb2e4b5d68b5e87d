#include "core/cli/commands.hpp"
#include "core/daemon/daemon.hpp"
#include "core/daemon/exit_codes.hpp"
#include "core/daemon/root_refusal.hpp"

#include <unistd.h>

#include <iostream>

namespace errand::cli {

int run_command(const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::cerr << "errand run: unexpected argument \"" << args.front()
              << "\"; the daemon takes its settings from the configuration file\n";
    return daemon::kExitRefused;
  }
  if (const auto allowed = daemon::refuse_root(::getuid(), ::geteuid()); !allowed) {
    std::cerr << allowed.error().message;
    return daemon::kExitRefused;
  }
  return daemon::run_daemon(daemon::RunEnvironment::from_process(), std::cout);
}

}  // namespace errand::cli
