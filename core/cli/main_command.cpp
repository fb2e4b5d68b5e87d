#include "core/cli/main_command.hpp"

#include "core/cli/commands.hpp"
#include "core/cli/remote_arguments.hpp"
#include "core/daemon/exit_codes.hpp"

#include <boost/program_options.hpp>
#include <iostream>

namespace errand::cli {

namespace po = boost::program_options;

int main_command(int argc, char** argv) {
  // `errand [OPTIONS] -- CMD`: routed before the option parser, which would take "--" and
  // the command's own options for errand's.
  if (const std::vector<std::string> words(argv + (argc > 0 ? 1 : 0), argv + argc);
      is_remote_run_command_line(words))
    return remote_run_command(words);
  po::options_description global("Options");
  global.add_options()("help,h", "print this help")("version", "print the version");
  po::options_description hidden;
  hidden.add_options()("command", po::value<std::string>(), "command")(
      "args", po::value<std::vector<std::string>>(), "arguments");
  po::options_description all;
  all.add(global).add(hidden);
  po::positional_options_description positional;
  positional.add("command", 1).add("args", -1);

  po::variables_map vm;
  std::vector<std::string> rest;
  try {
    auto parsed = po::command_line_parser(argc, argv)
                      .options(all)
                      .positional(positional)
                      .allow_unregistered()
                      .run();
    po::store(parsed, vm);
    po::notify(vm);
    rest = po::collect_unrecognized(parsed.options, po::include_positional);
  } catch (const po::error& e) {
    std::cerr << "errand: " << e.what() << "\nRun `errand help` for the commands.\n";
    return daemon::kExitRefused;
  }

  if (vm.count("version")) {
    std::cout << "errand " << ERRAND_VERSION << "\n";
    return 0;
  }
  if (!vm.count("command")) {
    print_help(std::cout, "");
    return vm.count("help") ? 0 : daemon::kExitRefused;
  }
  const std::string command = vm["command"].as<std::string>();
  // rest holds the command and everything after it, options included.
  std::vector<std::string> args(rest.begin() + 1, rest.end());
  if (vm.count("help")) {
    print_help(std::cout, command);
    return 0;
  }
  if (command == "help") {
    if (!args.empty() && args.front() == "--man") {
      print_man_page(std::cout);
    } else {
      print_help(std::cout, args.empty() ? "" : args.front());
    }
    return 0;
  }
  if (command == "run") return run_command(args);
  if (command == "plugins") return plugins_command(args);
  if (command == "config") return config_command(args);
  if (command == "threads") return threads_command(args);
  if (command == "web-access") return web_access_command(args);
  if (command == "setup") return setup_command(args);
  if (command == "up") return up_command(args);
  if (command == "reference") return reference_command(args);
  if (command == "attach") return remote_attach_command(args);
  if (command == "ps") return remote_ps_command(args);
  if (command == "kill") return remote_kill_command(args);
  if (command == "jobs") return remote_jobs_command(args);
  if (command == "serve") return serve_command(args);
  std::cerr << "errand: unknown command \"" << command
            << "\"\nRun `errand help` for the commands.\n";
  return daemon::kExitRefused;
}

}  // namespace errand::cli
