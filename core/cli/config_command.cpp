#include "core/cli/commands.hpp"
#include "core/config/problem.hpp"
#include "core/config/reference.hpp"
#include "core/daemon/agent_install_report.hpp"
#include "core/daemon/configuration_source.hpp"
#include "core/daemon/exit_codes.hpp"
#include "core/daemon/serve_readiness.hpp"
#include "core/log/logging.hpp"
#include "core/sandbox/inert_backend_keys.hpp"
#include "core/sandbox/sandbox_choice.hpp"
#include "core/secrets/secret_scrubber.hpp"

#include <iostream>

namespace errand::cli {

namespace {

struct ConfigArgs {
  std::string action;
  std::optional<std::string> file;
  std::optional<std::string> plugin_dir;
  bool file_only = false;  // check: the file alone, not what run checks on this host
};

std::optional<ConfigArgs> parse(const std::vector<std::string>& args) {
  if (args.empty()) return std::nullopt;
  ConfigArgs parsed{args.front(), std::nullopt, std::nullopt, false};
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--plugin-dir" && i + 1 < args.size()) {
      parsed.plugin_dir = args[++i];
    } else if (parsed.action == "check" && args[i] == "--file-only") {
      parsed.file_only = true;
    } else if (parsed.action == "check" && !parsed.file && args[i].rfind("--", 0) != 0) {
      parsed.file = args[i];
    } else {
      return std::nullopt;
    }
  }
  if (parsed.action != "check" && parsed.action != "schema" && parsed.action != "reference") {
    return std::nullopt;
  }
  return parsed;
}

}  // namespace

int config_command(const std::vector<std::string>& args) {
  const auto parsed = parse(args);
  if (!parsed) {
    print_help(std::cerr, "config");
    return daemon::kExitRefused;
  }
  auto env = daemon::RunEnvironment::from_process();
  if (parsed->file) env.errand_config = *parsed->file;
  if (parsed->plugin_dir) {
    // Only this directory: the committed schema must not depend on what else is installed.
    env.errand_plugin_path = *parsed->plugin_dir;
    env.default_plugin_dir.clear();
  }
  secrets::SecretScrubber scrubber;
  log::Logging logging(scrubber);
  logging.set_level("error");
  const auto log = logging.logger("errand");
  const auto source =
      daemon::ConfigurationSource::discover(env, *log, !parsed->plugin_dir.has_value());

  if (parsed->action == "check") {
    const auto loaded = source.load();
    if (!loaded) {
      std::cerr << config::format_problems(loaded.error());
      return daemon::kExitRefused;
    }
    // What `errand run` would refuse before serving, beyond validation, is refused here too.
    std::vector<std::string> warnings;
    if (!parsed->file_only) {
      const auto readiness = daemon::check_serve_readiness(loaded->effective);
      if (!readiness) {
        std::cerr << source.origin() << ": " << readiness.error().message << "\n";
        return daemon::kExitRefused;
      }
      warnings = readiness->warnings;
    }
    std::cout << "configuration accepted: " << source.origin() << "\n";
    for (const auto& warning : warnings) std::cout << "warning: " << warning << "\n";
    const auto backend = sandbox::sandbox_choice(loaded->effective).backend;
    if (!parsed->file_only) {
      // The agent as `errand run` reports it. Which backends run the host's install is known
      // for certain only from their probe, which this command does not run: bailey is the one
      // errand ships that does, so any other is described as running its image's.
      const auto install =
          daemon::agent_install_report(loaded->effective, loaded->source, backend == "bailey");
      if (!install) {
        std::cerr << source.origin() << ": " << install.error().message << "\n";
        return daemon::kExitRefused;
      }
      std::cout << *install;
    }
    for (const auto& note : sandbox::inert_backend_keys(source.schema, loaded->written, backend))
      std::cout << "note: " << note << "\n";
    return 0;
  }
  if (!source.schema_problems.empty()) {
    std::cerr << config::format_problems(source.schema_problems);
    return daemon::kExitRefused;
  }
  if (parsed->action == "schema") {
    std::cout << config::render_schema_json(source.schema);
  } else {
    std::cout << config::render_reference_markdown(source.schema);
  }
  return 0;
}

}  // namespace errand::cli
