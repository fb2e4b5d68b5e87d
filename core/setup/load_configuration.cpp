#include "core/setup/setup_context.hpp"

#include <system_error>

namespace errand::setup {

void load_configuration(SetupContext& context) {
  const auto example = context.data.require("config.example.json", "reading the configuration");
  context.example = read_jsonc_object(example, "reading " + example.string());
  std::error_code ec;
  if (std::filesystem::exists(context.host.config, ec)) {
    context.config = read_jsonc_object(context.host.config,
                                       "reading the configuration " + context.host.config.string());
  } else {
    context.config = context.example;
  }
  context.values = setup_values(context.config, context.example);
  if (context.values.project_root.empty() || context.values.project_root.is_relative() ||
      context.values.state_dir.empty() || context.values.state_dir.is_relative())
    throw StepFailed("reading the configuration",
                     "projectRoot (" + context.values.project_root.string() + ") and stateDir (" +
                         context.values.state_dir.string() + ") must both be absolute paths",
                     "set them in " + context.host.config.string());
}

}  // namespace errand::setup
