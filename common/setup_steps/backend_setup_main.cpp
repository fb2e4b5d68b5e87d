#include "common/setup_steps/backend_setup_main.hpp"

#include <algorithm>
#include <exception>
#include <iostream>

namespace errand::setup {

bool BackendSetupContext::has_option(std::string_view flag) const {
  return std::find(request.options.begin(), request.options.end(), flag) != request.options.end();
}

int backend_setup_main(const BackendSetup& backend, int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && args.front() == "options") {
    for (const auto& option : backend.options) std::cout << option_line(option) << '\n';
    return 0;
  }
  if (!args.empty() && args.front() == "settings") {
    std::vector<std::string> flags;
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (i == 1 && args[i] == "--") continue;
      const bool known = std::any_of(backend.options.begin(), backend.options.end(),
                                     [&](const BackendOption& o) { return o.flag == args[i]; });
      if (!known) {
        std::cerr << "the " << backend.backend << " backend's setup: unknown option \"" << args[i]
                  << "\"\n";
        return 2;
      }
      flags.push_back(args[i]);
    }
    std::cout << settings_line(backend.settings ? backend.settings(flags) : boost::json::object{})
              << '\n';
    return 0;
  }
  auto request = parse_hook_arguments(args, backend.options);
  if (!request) {
    std::cerr << "the " << backend.backend << " backend's setup: " << request.error().message
              << "\n";
    return 2;
  }
  StepReport report(std::cout, request->dry_run);
  auto account = find_account(request->account);
  BackendSetupContext context{.request = std::move(*request),
                              .report = report,
                              .data = DataDir::from_process(),
                              .account = std::move(account)};
  const auto& steps = context.request.mode == HookMode::setup ? backend.setup : backend.up;
  try {
    if (steps) steps(context);
  } catch (const StepFailed& failed) {
    std::cout << failure_line(failed) << std::endl;
    return 1;
  } catch (const std::exception& unexpected) {
    std::cout << failure_line(StepFailed("the " + backend.backend + " backend's setup",
                                         unexpected.what(), "read the log, and run setup again"))
              << std::endl;
    return 1;
  }
  return 0;
}

}  // namespace errand::setup
