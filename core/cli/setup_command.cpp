#include <iostream>

#include "core/cli/commands.hpp"
#include "core/setup/setup_run.hpp"

namespace errand::cli {

int setup_command(const std::vector<std::string>& args) {
  setup::SetupOptions options;
  auto refuse = [](const std::string& why) {
    std::cerr << "errand setup: " << why << "\n";
    print_help(std::cerr, "setup");
    return 2;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& arg = args[i];
    if (arg == "--dry-run") {
      options.dry_run = true;
    } else if (arg == "--account" || arg == "--config") {
      if (i + 1 == args.size() || args[i + 1].empty()) return refuse(arg + " needs a value");
      const auto& value = args[++i];
      if (arg == "--account") {
        options.account = value;
      } else {
        if (value.front() != '/') return refuse("--config needs an absolute path");
        options.host.config = value;
      }
    } else if (arg.starts_with("--") && arg.size() > 2) {
      // The backend's own (--golden is incus's): its plugin's setup program says which it takes.
      options.backend_options.push_back(arg);
    } else if (!arg.empty() && arg.front() == '-') {
      return refuse("unknown option \"" + arg + "\"");
    } else if (options.backend.empty()) {
      options.backend = arg;
    } else {
      return refuse("one backend only (got \"" + options.backend + "\" and \"" + arg + "\")");
    }
  }
  if (options.backend.empty())
    return refuse(
        "name the backend: bailey, podman or incus (errand's own), another sandbox plugin's name "
        "(errand plugins list), or agents alone");
  return setup::run_setup(options, std::cout, std::cerr);
}

}  // namespace errand::cli
