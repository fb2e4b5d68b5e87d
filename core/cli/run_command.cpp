#include "core/cli/commands.hpp"
#include "core/daemon/built_in_start.hpp"
#include "core/daemon/daemon.hpp"
#include "core/daemon/exit_codes.hpp"
#include "core/daemon/root_refusal.hpp"

#include <unistd.h>

#include <iostream>

namespace errand::cli {

int run_command(const std::vector<std::string>& args) {
  bool save_config = false;
  for (const auto& arg : args) {
    if (arg == "--save-config") {
      save_config = true;
      continue;
    }
    std::cerr << "errand run: unexpected argument \"" << arg
              << "\"; the daemon takes its settings from the configuration file (--save-config "
                 "writes the built-in default as one)\n";
    return daemon::kExitRefused;
  }
  if (const auto allowed = daemon::refuse_root(::getuid(), ::geteuid()); !allowed) {
    std::cerr << allowed.error().message;
    return daemon::kExitRefused;
  }
  const auto env = daemon::RunEnvironment::from_process();
  if (save_config) {
    const auto saved = daemon::save_built_in_default(env);
    if (!saved) {
      std::cerr << "errand run --save-config: " << saved.error().message << "\n";
      return daemon::kExitRefused;
    }
    std::cout << "wrote the built-in default to " << saved->string()
              << " (readable by this account alone: it holds the provider key); errand reads it "
                 "from now on, and follows edits while it runs\n"
              << std::flush;
  }
  return daemon::run_daemon(env, std::cout);
}

}  // namespace errand::cli
