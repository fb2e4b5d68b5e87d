#pragma once

// The core's side of the setup hook (common/setup_steps/backend_hook.hpp): the sandbox backends
// `errand setup` and `errand up` can name are the sandbox plugins found where `errand run` looks
// for them; a backend's own steps are its setup program's, run here with the core's context.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/setup_steps/backend_hook.hpp"
#include "common/setup_steps/data_dir.hpp"
#include "common/setup_steps/step_report.hpp"
#include "core/setup/setup_context.hpp"

namespace errand::setup {

struct SetupBackend {
  std::string name;  // as the operator names it: "podman"
  std::filesystem::path plugin;
  // Its setup program, when the plugin ships one beside it (a backend with no host steps of its
  // own ships none).
  std::optional<std::filesystem::path> program;
};

class SetupBackends {
 public:
  // The sandbox plugins loaded from dirs, in the order found.
  static SetupBackends scan(const std::vector<std::filesystem::path>& dirs);

  const SetupBackend* find(std::string_view name) const;
  const std::vector<SetupBackend>& all() const { return backends_; }
  // "bailey, incus or podman", for a refusal.
  std::string names() const;

 private:
  std::vector<SetupBackend> backends_;
};

// Where setup looks: ERRAND_PLUGIN_PATH, the plugins.path of the configuration at config (when
// it can be read), then the installed plugin directory, as `errand run` does.
std::vector<std::filesystem::path> setup_plugin_dirs(const std::filesystem::path& config);

// The options of the backend's own setup (none without a program); a refusal when the program
// cannot say.
sdk::Result<std::vector<BackendOption>> backend_options(const SetupBackend& backend);

// The sandbox.<name> block a configuration setup writes for the backend holds, given the
// backend's own flags (empty without a program); a refusal when the program cannot say.
sdk::Result<boost::json::object> backend_settings(const SetupBackend& backend,
                                                  const std::vector<std::string>& flags);

// The request for the backend's program in mode, from what the core's steps worked from.
HookRequest hook_request(const SetupContext& context, HookMode mode,
                         std::vector<std::string> backend_options);

// Runs the backend's program for request, its step lines counted in report and its other output
// in request.log. Throws StepFailed with the program's own failed step, or, when it said none,
// its exit code and the log's tail. Nothing to do for a backend without a program.
void run_backend_program(const SetupBackend& backend, const HookRequest& request,
                         const DataDir& data, StepReport& report);

}  // namespace errand::setup
