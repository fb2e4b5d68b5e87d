#include "core/setup/setup_context.hpp"

#include <system_error>

#include "core/config/jsonc.hpp"
#include "core/config/read_text_file.hpp"
#include "core/setup/new_configuration.hpp"

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

void plan_new_configuration(SetupContext& context, const std::string& backend,
                            const boost::json::object& settings) {
  context.backend = backend;
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(context.host.config, ec))) return;
  const auto example = context.data.require("config.example.json", "reading the configuration");
  auto text = config::read_text_file(example);
  if (!text) throw StepFailed("the configuration file", text.error().message, "reinstall errand");
  context.new_configuration = configuration_for_backend(std::move(*text), backend, settings,
                                                        context.data.root() / "config.schema.json");
  context.config = config::parse_jsonc(context.new_configuration)->as_object();
  context.values = setup_values(context.config, context.example);
}

}  // namespace errand::setup
