#include "core/cli/commands.hpp"
#include "core/daemon/exit_codes.hpp"
#include "core/daemon/root_refusal.hpp"
#include "core/daemon/run_environment.hpp"
#include "core/daemon/serve_bridge.hpp"
#include "core/daemon/serve_runner.hpp"

#include <unistd.h>

#include <iostream>

namespace errand::cli {

int serve_command(const std::vector<std::string>& args) {
  bool connect = false;
  for (const auto& arg : args) {
    if (arg == "--connect") {
      connect = true;
      continue;
    }
    std::cerr << "errand serve: unexpected argument \"" << arg
              << "\"; the runner takes its settings from the configuration's runner block "
                 "(--connect bridges stdin and stdout to a running one)\n";
    return daemon::kExitRefused;
  }
  const auto env = daemon::RunEnvironment::from_process();
  if (connect) return daemon::bridge_to_runner(env);
  if (const auto allowed = daemon::refuse_root(::getuid(), ::geteuid()); !allowed) {
    std::cerr << allowed.error().message;
    return daemon::kExitRefused;
  }
  return daemon::serve_runner(env, std::cout);
}

}  // namespace errand::cli
