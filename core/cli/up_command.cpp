#include <charconv>
#include <iostream>

#include "core/cli/commands.hpp"
#include "core/setup/up_run.hpp"

namespace errand::cli {

int up_command(const std::vector<std::string>& args) {
  setup::UpOptions options;
  auto refuse = [](const std::string& why) {
    std::cerr << "errand up: " << why << "\n";
    print_help(std::cerr, "up");
    return 2;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& arg = args[i];
    if (arg == "--dry-run") {
      options.dry_run = true;
    } else if (arg == "--cgroup-only") {
      options.cgroup_only = true;
    } else if (arg == "--join" || arg == "--account" || arg == "--config") {
      if (i + 1 == args.size() || args[i + 1].empty()) return refuse(arg + " needs a value");
      const auto& value = args[++i];
      if (arg == "--join") {
        pid_t pid = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), pid);
        if (ec != std::errc() || end != value.data() + value.size() || pid <= 0)
          return refuse("--join needs a process id, not \"" + value + "\"");
        options.join_pid = pid;
      } else if (arg == "--account") {
        options.account = value;
      } else {
        if (value.front() != '/') return refuse("--config needs an absolute path");
        options.host.config = value;
      }
    } else {
      return refuse("unknown argument \"" + arg + "\"");
    }
  }
  return setup::run_up(options, std::cout, std::cerr);
}

}  // namespace errand::cli
