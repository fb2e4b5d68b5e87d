#include "core/setup/setup_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <optional>
#include <ostream>
#include <system_error>

#include "core/setup/backend_hook_run.hpp"
#include "core/setup/steps.hpp"

namespace errand::setup {

namespace fs = std::filesystem;

namespace {

// A dry run changes nothing, not even the log directory: its programs (the scripts' own dry
// runs) write to a temporary file, removed at the end.
class DryRunLog {
 public:
  DryRunLog() {
    std::string name = (fs::temp_directory_path() / "errand-setup-dry-run.XXXXXX").string();
    const int fd = ::mkstemp(name.data());
    if (fd >= 0) {
      ::close(fd);
      path_ = name;
    }
  }
  ~DryRunLog() {
    std::error_code ec;
    if (!path_.empty()) fs::remove(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// What every backend needs, before its own steps.
void core_steps(SetupContext& context) {
  step_log_dir(context);
  step_account(context);
  step_config_file(context);
  step_directories(context);
  step_agents(context);
  step_cgroup(context);
  step_service(context);
}

// Whose option flag is, among the backends other than chosen, said in a refusal; nothing when no
// backend takes it.
std::optional<std::string> option_of_another(const SetupBackends& backends,
                                             const SetupBackend& chosen, const std::string& flag,
                                             const std::vector<BackendOption>& chosen_options) {
  for (const auto& other : backends.all()) {
    if (other.name == chosen.name) continue;
    const auto theirs = backend_options(other);
    if (!theirs) continue;
    for (const auto& option : *theirs) {
      if (option.flag != flag) continue;
      std::string taken;
      for (const auto& own : chosen_options) taken += (taken.empty() ? "" : ", ") + own.flag;
      return flag + " " + option.what + ", which only the " + other.name + " backend has (" +
             chosen.name + "'s setup takes " +
             (taken.empty() ? std::string("no option of its own") : taken) + ")";
    }
  }
  return std::nullopt;
}

}  // namespace

int run_setup(const SetupOptions& options, std::ostream& out, std::ostream& err) {
  const bool agents_only = options.backend == "agents";
  std::optional<SetupBackend> backend;
  boost::json::object settings;
  if (!agents_only) {
    const auto dirs = setup_plugin_dirs(options.host.config);
    const auto backends = SetupBackends::scan(dirs);
    const auto* found = backends.find(options.backend);
    if (found == nullptr) {
      err << "errand setup: unknown backend \"" << options.backend << "\" ";
      if (backends.all().empty()) {
        std::string searched;
        for (std::size_t i = 0; i < dirs.size(); ++i)
          searched += (i == 0 ? "" : i + 1 == dirs.size() ? " or " : ", ") + dirs[i].string();
        err << "(no sandbox plugin is in " << searched
            << "; ERRAND_PLUGIN_PATH or plugins.path names where they are; agents installs "
               "the bundled agents alone)\n";
      } else {
        err << "(expected " << backends.names() << ", or agents for the bundled agents alone)\n";
      }
      return 2;
    }
    backend = *found;
    const auto accepted = backend_options(*backend);
    if (!accepted) {
      err << "errand setup: the " << backend->name
          << " backend cannot say its options: " << accepted.error().message << "\n";
      return 2;
    }
    for (const auto& flag : options.backend_options) {
      const bool own = std::any_of(accepted->begin(), accepted->end(),
                                   [&](const BackendOption& o) { return o.flag == flag; });
      if (own) continue;
      const auto theirs = option_of_another(backends, *backend, flag, *accepted);
      err << "errand setup: " << (theirs ? *theirs : "unknown option \"" + flag + "\"") << "\n";
      return 2;
    }
    auto said = backend_settings(*backend, options.backend_options);
    if (!said) {
      err << "errand setup: the " << backend->name
          << " backend cannot say its settings: " << said.error().message << "\n";
      return 2;
    }
    settings = std::move(*said);
  } else if (!options.backend_options.empty()) {
    err << "errand setup: unknown option \"" << options.backend_options.front() << "\"\n";
    return 2;
  }
  if (::geteuid() != 0 && agents_only) {
    err << "errand setup: run it as root (for example with sudo): it installs the bundled agents "
           "into "
        << options.host.agents.string() << "\n";
    return 2;
  }
  if (::geteuid() != 0) {
    err << "errand setup: run it as root (for example with sudo): it creates the "
        << options.account << " account, writes " << options.host.config.string()
        << ", hands a cgroup subtree to the account and enables the service\n";
    return 2;
  }
  StepReport report(out, options.dry_run);
  DryRunLog dry_log;
  SetupContext context{.account_name = options.account,
                       .host = options.host,
                       .data = DataDir::from_process(),
                       .report = report,
                       .log = options.dry_run ? dry_log.path() : options.host.log_dir / "setup.log",
                       .example = {},
                       .config = {},
                       .values = {},
                       .account = std::nullopt,
                       .backend = {},
                       .new_configuration = {}};
  if (options.dry_run) out << "dry run: nothing is changed; each line says what would be done\n";
  try {
    if (agents_only) {
      step_log_dir(context);
      step_agents(context);
      out << '\n' << report.summary() << '\n';
      return 0;
    }
    load_configuration(context);
    plan_new_configuration(context, backend->name, settings);
    core_steps(context);
    run_backend_program(*backend, hook_request(context, HookMode::setup, options.backend_options),
                        context.data, report);
    report_left_to_fill(context);
  } catch (const StepFailed& failed) {
    out.flush();
    err << "failed: " << failed.step << ": " << failed.reason;
    if (!failed.reason.empty() && failed.reason.back() != '\n') err << '\n';
    err << "what to do: " << failed.remedy << "\n";
    err << "errand setup stopped there; the steps before it stay done, and running it again "
           "continues from this one\n";
    return 1;
  }
  out << '\n' << report.summary() << '\n';
  return 0;
}

}  // namespace errand::setup
