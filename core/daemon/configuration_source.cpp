#include "core/daemon/configuration_source.hpp"

#include "core/config/locate.hpp"
#include "core/config/schema.hpp"
#include "core/daemon/plugin_contributions.hpp"
#include "core/plugins/search_path.hpp"

#include <boost/json/serialize.hpp>

namespace errand::daemon {

ConfigurationSource ConfigurationSource::discover(const RunEnvironment& env, spdlog::logger& log,
                                                  bool use_configured_plugin_dirs,
                                                  PluginCode code) {
  ConfigurationSource source;
  const auto search =
      config::locate_config(env.errand_config ? env.errand_config->c_str() : nullptr,
                            env.home ? env.home->c_str() : nullptr, env.etc_dir, env.cwd);
  source.file = search.found;
  source.tried = search.tried;
  // A file named outright and missing is that file's problem, never a reason to start on
  // something else.
  const bool named = env.errand_config && !env.errand_config->empty();
  if (!source.file && !named) {
    if (auto chosen = config::embedded_default(env.embedded_inputs))
      source.embedded = std::move(*chosen);
    else
      source.embedded_refusal = chosen.error().message;
  }

  // Where plugins live may itself be configured, so it is read leniently before the plugins
  // that shape the full schema are loaded.
  std::vector<std::filesystem::path> configured_dirs;
  if (source.file && use_configured_plugin_dirs)
    configured_dirs = config::plugin_dirs_leniently(*source.file);
  source.plugin_dirs = plugins::plugin_search_dirs(
      env.errand_plugin_path ? env.errand_plugin_path->c_str() : nullptr, configured_dirs,
      env.default_plugin_dir);
  if (code == PluginCode::mapped_at_scan) {
    source.registry = std::make_shared<plugins::PluginRegistry>(
        plugins::PluginRegistry::scan(source.plugin_dirs, log));
  } else {
    auto described = plugins::PluginRegistry::describe(source.plugin_dirs, log,
                                                       plugins::own_program_as_helper());
    if (!described) {
      source.registry = std::make_shared<plugins::PluginRegistry>();
      source.schema_problems = {
          {"", "errand could not read its plugins: " + described.error().message +
                   "; it reads them with its own program, which must be able to run"}};
      source.schema = config::core_schema();
      return source;
    }
    source.registry = std::make_shared<plugins::PluginRegistry>(std::move(*described));
  }
  source.contributions = contributions_of(*source.registry);

  auto composed = config::compose_schema(source.contributions);
  if (composed) {
    source.schema = std::move(*composed);
  } else {
    source.schema_problems = composed.error();
    source.schema = config::core_schema();
  }
  return source;
}

config::LoadResult ConfigurationSource::load() const {
  if (!schema_problems.empty()) return schema_problems;
  if (!file && embedded) {
    return config::load_config_text(boost::json::serialize(embedded->written), {}, schema,
                                    contributions);
  }
  if (!file) {
    std::string why = "no configuration file was found; " + describe_search();
    if (!embedded_refusal.empty()) why += " Or start without one: " + embedded_refusal + ".";
    return std::vector<config::Problem>{{"", why}};
  }
  return config::load_config_file(*file, schema, contributions);
}

config::LoadResult ConfigurationSource::load_written(const boost::json::object& written) const {
  if (!schema_problems.empty()) return schema_problems;
  return config::load_config_text(boost::json::serialize(written), file.value_or(""), schema,
                                  contributions);
}

std::string ConfigurationSource::describe_search() const {
  std::string out = "errand looked at";
  for (std::size_t i = 0; i < tried.size(); ++i) {
    out += (i == 0 ? " " : ", ") + tried[i].string();
  }
  out += ". Copy config.example.json to one of them, or name a file with ERRAND_CONFIG.";
  return out;
}

std::string ConfigurationSource::origin() const {
  if (file) return file->string();
  if (embedded)
    return "the built-in default (no configuration file; the key from " + embedded->key_variable +
           ")";
  return "no configuration file";
}

}  // namespace errand::daemon
