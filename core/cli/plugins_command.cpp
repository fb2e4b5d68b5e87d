#include "core/cli/commands.hpp"
#include "core/daemon/configuration_source.hpp"
#include "core/daemon/exit_codes.hpp"
#include "core/log/logging.hpp"
#include "core/plugins/list_report.hpp"
#include "core/secrets/secret_scrubber.hpp"

#include <boost/json/serialize.hpp>
#include <iostream>

namespace errand::cli {

int plugins_command(const std::vector<std::string>& args) {
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
  secrets::SecretScrubber scrubber;
  log::Logging logging(scrubber);
  logging.set_level("error");
  const auto log = logging.logger("errand");
  const auto source =
      daemon::ConfigurationSource::discover(daemon::RunEnvironment::from_process(), *log);
  const auto& records = source.registry->records();
  if (json) {
    std::cout << boost::json::serialize(plugins::render_plugin_json(records)) << "\n";
  } else {
    std::cout << plugins::render_plugin_table(records);
    if (records.empty()) {
      std::cout << "no plugins found in:";
      for (const auto& dir : source.plugin_dirs) std::cout << " " << dir.string();
      std::cout << "\n";
    }
  }
  return 0;
}

}  // namespace errand::cli
