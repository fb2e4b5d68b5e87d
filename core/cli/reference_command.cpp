#include "core/cli/commands.hpp"
#include "core/daemon/exit_codes.hpp"
#include "core/reference/characters_page.hpp"
#include "core/reference/commands_page.hpp"

#include <iostream>

namespace errand::cli {

namespace {

constexpr std::string_view kUsage =
    "Usage: errand reference <configuration [--plugin-dir DIR] | commands | characters>\n"
    "Prints a generated reference page (Markdown): the configuration keys, the chat commands, "
    "or the reactions and status lines errand posts.\n";

}  // namespace

// `errand reference <page>`: the pages docs/reference/ holds, printed from the code that
// scripts/regenerate-reference writes them from.
int reference_command(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::cerr << kUsage;
    return daemon::kExitRefused;
  }
  const std::string& page = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  // The configuration page depends on the plugins found, so it is `errand config reference`
  // itself, with its --plugin-dir.
  if (page == "configuration") {
    std::vector<std::string> config_args{"reference"};
    config_args.insert(config_args.end(), rest.begin(), rest.end());
    return config_command(config_args);
  }
  if (page != "commands" && page != "characters") {
    std::cerr << "errand reference: there is no page \"" << page
              << "\"; the pages are configuration, commands and characters\n"
              << kUsage;
    return daemon::kExitRefused;
  }
  if (!rest.empty()) {
    std::cerr << "errand reference " << page << ": takes no arguments, and \"" << rest.front()
              << "\" was given\n"
              << kUsage;
    return daemon::kExitRefused;
  }
  std::cout << (page == "commands" ? reference::render_commands_page()
                                   : reference::render_characters_page());
  return 0;
}

}  // namespace errand::cli
