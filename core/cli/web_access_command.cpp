// errand web-access [--rotate]: prints the web interface's addresses with their access secrets
// again (the operator's and the observer's), or replaces both secrets first. Run as the
// daemon's account: the secrets are in its state directory, which only it reads.

#include "core/cli/command_configuration.hpp"
#include "core/cli/commands.hpp"
#include "core/config/problem.hpp"
#include "core/config/settings.hpp"
#include "core/daemon/exit_codes.hpp"
#include "core/web/access/access_check.hpp"
#include "core/web/access/access_secrets.hpp"
#include "core/web/web_interface.hpp"

#include <iostream>

namespace errand::cli {

int web_access_command(const std::vector<std::string>& args) {
  const bool rotate = args.size() == 1 && args[0] == "--rotate";
  if (!args.empty() && !rotate) {
    print_help(std::cerr, "web-access");
    return daemon::kExitRefused;
  }
  const CommandConfiguration configuration;
  const auto& source = configuration.source();
  const auto loaded = source.load();
  if (!loaded) {
    std::cerr << config::format_problems(loaded.error());
    return daemon::kExitRefused;
  }
  const auto web = web::web_settings_from(loaded->effective);
  if (!web) {
    std::cerr << "errand web-access: the configuration (" << source.origin()
              << ") has no web block, so there is no web interface to open\n";
    return daemon::kExitRefused;
  }
  const auto state_dir = config::settings_from(loaded->effective).state_dir;
  std::error_code ec;
  if (!std::filesystem::is_directory(state_dir, ec)) {
    std::cerr << "errand web-access: the state directory " << state_dir.string()
              << " does not exist yet; errand run makes it, and the access secrets, at its "
                 "first start\n";
    return daemon::kExitRefused;
  }
  // Only read unless rotating: errand run makes the secrets at its first start.
  const auto secrets = rotate ? web::rotate_access_secrets(state_dir)
                              : web::read_access_secrets(web::access_file(state_dir));
  if (!secrets) {
    std::cerr << "errand web-access: " << secrets.error().message << "\n";
    return daemon::kExitRefused;
  }
  const bool v6 = web->host.find(':') != std::string::npos;
  const auto address =
      "http://" + (v6 ? "[" + web->host + "]" : web->host) + ":" + std::to_string(web->port) + "/";
  if (rotate)
    std::cout << "new access secrets written to " << web::access_file(state_dir).string()
              << "; a running daemon refuses the old ones from its next request\n";
  if (!web->observer)
    std::cout << "web interface: open "
              << web::address_with_secret(address, secrets->operator_secret) << "\n";
  std::cout << "web interface, read only: "
            << web::address_with_secret(address, secrets->observer_secret) << "\n";
  return 0;
}

}  // namespace errand::cli
