#include "core/setup/backend_hook_run.hpp"

#include <unistd.h>

#include <spdlog/logger.h>
#include <spdlog/sinks/null_sink.h>
#include <cstdlib>
#include <system_error>

#include "common/setup_steps/program_run.hpp"
#include "core/config/load.hpp"
#include "core/plugins/file_trust.hpp"
#include "core/plugins/registry.hpp"
#include "core/plugins/search_path.hpp"
#include "core/setup/init_system.hpp"

namespace errand::setup {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSandboxPrefix = "sandbox-";

// The name an operator gives: the descriptor's, without the kind's prefix the shipped plugins
// carry ("sandbox-podman" is named podman, as sandbox.backend names it).
std::string backend_name(const std::string& descriptor_name) {
  return descriptor_name.starts_with(kSandboxPrefix) ? descriptor_name.substr(kSandboxPrefix.size())
                                                     : descriptor_name;
}

// A setup program runs as root: it must be a trusted file (as its plugin is) and executable.
sdk::Result<void> check_program(const fs::path& program) {
  if (auto trusted = plugins::check_plugin_file_trust(program); !trusted) return trusted;
  if (::access(program.c_str(), X_OK) != 0)
    return sdk::refusal(program.string() + " is not executable");
  return {};
}

}  // namespace

SetupBackends SetupBackends::scan(const std::vector<fs::path>& dirs) {
  // The listing of refused plugins is `errand plugins list`'s; setup only needs the loaded ones.
  spdlog::logger quiet("setup", std::make_shared<spdlog::sinks::null_sink_mt>());
  const auto registry = plugins::PluginRegistry::scan(dirs, quiet);
  SetupBackends found;
  for (const auto* record : registry.loaded_of_kind("sandbox")) {
    SetupBackend backend{backend_name(record->name), record->path, std::nullopt};
    if (found.find(backend.name) != nullptr) continue;  // the first found serves, as for run
    const auto program = hook_program_beside(record->path);
    std::error_code ec;
    if (fs::exists(program, ec)) backend.program = program;
    found.backends_.push_back(std::move(backend));
  }
  return found;
}

const SetupBackend* SetupBackends::find(std::string_view name) const {
  for (const auto& backend : backends_)
    if (backend.name == name) return &backend;
  return nullptr;
}

std::string SetupBackends::names() const {
  std::string out;
  for (std::size_t i = 0; i < backends_.size(); ++i) {
    if (i > 0) out += i + 1 == backends_.size() ? " or " : ", ";
    out += backends_[i].name;
  }
  return out;
}

std::vector<fs::path> setup_plugin_dirs(const fs::path& config) {
  return plugins::plugin_search_dirs(std::getenv("ERRAND_PLUGIN_PATH"),
                                     config::plugin_dirs_leniently(config),
                                     plugins::default_plugin_dir());
}

sdk::Result<std::vector<BackendOption>> backend_options(const SetupBackend& backend) {
  if (!backend.program) return std::vector<BackendOption>{};
  if (auto usable = check_program(*backend.program); !usable) return usable.error();
  const auto listed = capture_program({backend.program->string(), "options"});
  if (listed.exit_code != 0)
    return sdk::make_error(backend.program->string() + " options exited with " +
                           std::to_string(listed.exit_code));
  std::vector<BackendOption> options;
  std::size_t start = 0;
  while (start < listed.out.size()) {
    auto end = listed.out.find('\n', start);
    if (end == std::string::npos) end = listed.out.size();
    const auto line = std::string_view(listed.out).substr(start, end - start);
    if (auto option = parse_option_line(line)) {
      options.push_back(std::move(*option));
    } else if (!line.empty()) {
      return sdk::make_error(backend.program->string() + " options printed a line that is not " +
                             "an option: \"" + std::string(line) + "\"");
    }
    start = end + 1;
  }
  return options;
}

sdk::Result<boost::json::object> backend_settings(const SetupBackend& backend,
                                                  const std::vector<std::string>& flags) {
  if (!backend.program) return boost::json::object{};
  if (auto usable = check_program(*backend.program); !usable) return usable.error();
  std::vector<std::string> argv = {backend.program->string(), "settings", "--"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  const auto said = capture_program(argv);
  if (said.exit_code != 0)
    return sdk::make_error(backend.program->string() + " settings exited with " +
                           std::to_string(said.exit_code));
  auto line = std::string_view(said.out);
  while (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  auto settings = parse_settings_line(line);
  if (!settings)
    return sdk::make_error(backend.program->string() + " settings printed \"" + std::string(line) +
                           "\", not one settings line");
  return std::move(*settings);
}

HookRequest hook_request(const SetupContext& context, HookMode mode,
                         std::vector<std::string> backend_options) {
  return {.mode = mode,
          .account = context.account_name,
          .project_root = context.values.project_root,
          .state_dir = context.values.state_dir,
          .log = context.log,
          .init = std::string(init_word(detect_init(context.host))),
          .dry_run = context.dry_run(),
          .options = std::move(backend_options)};
}

void run_backend_program(const SetupBackend& backend, const HookRequest& request,
                         const DataDir& data, StepReport& report) {
  if (!backend.program) return;
  const std::string step = "the " + backend.name + " backend's own steps";
  if (auto usable = check_program(*backend.program); !usable)
    throw StepFailed(step, usable.error().message,
                     "reinstall the plugin, or make its setup program root's and writable by "
                     "root alone");
  std::vector<std::string> argv = {backend.program->string()};
  const auto args = hook_arguments(request);
  argv.insert(argv.end(), args.begin(), args.end());
  ProgramRun run(argv, "running " + step, request.log, {"ERRAND_DATA_DIR=" + data.root().string()});
  run.keep_lines_starting = "failed: ";
  const auto result = run_program(run, &report);
  if (result.exit_code == 0) return;
  for (const auto& line : result.kept)
    if (auto failed = parse_failure_line(line)) throw std::move(*failed);
  throw StepFailed(step,
                   backend.program->string() + " exited with " + std::to_string(result.exit_code) +
                       " without saying which step failed; " + "the end of its log (" +
                       request.log.string() + "):\n" + result.output_tail,
                   "read the log, fix what it names, and run setup again");
}

}  // namespace errand::setup
