#include "core/cli/command_configuration.hpp"
#include "core/cli/commands.hpp"
#include "core/daemon/exit_codes.hpp"
#include "core/plugins/list_report.hpp"
#include "core/plugins/plugin_helper.hpp"

#include <boost/json/serialize.hpp>
#include <iostream>

namespace errand::cli {

int plugins_command(const std::vector<std::string>& args) {
  // errand's own helper commands (core/plugins/plugin_helper.hpp), run by the daemon.
  if (!args.empty() && (args.front() == "describe" || args.front() == "check-config"))
    return plugins::serve_helper_command(args.front(), {args.begin() + 1, args.end()});
  if (args.empty() || args.front() != "list") {
    std::cerr << "errand plugins: expected `list`\n";
    print_help(std::cerr, "plugins");
    return daemon::kExitRefused;
  }
  bool json = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--json") {
      json = true;
    } else {
      std::cerr << "errand plugins list: unknown option \"" << args[i] << "\"\n";
      return daemon::kExitRefused;
    }
  }
  // The listing itself states every refusal, so the scan's own warnings would only repeat it.
  const CommandConfiguration configuration;
  const auto& records = configuration.source().registry->records();
  if (json) {
    std::cout << boost::json::serialize(plugins::render_plugin_json(records)) << "\n";
  } else {
    std::cout << plugins::render_plugin_table(records);
    if (records.empty()) {
      std::cout << "no plugins found in:";
      for (const auto& dir : configuration.source().plugin_dirs) std::cout << " " << dir.string();
      std::cout << "\n";
    }
  }
  return 0;
}

}  // namespace errand::cli
