#include "core/config/load.hpp"

#include <errand/sdk/config_values.hpp>
#include <exception>

#include "core/config/cross_checks.hpp"
#include "core/config/defaults.hpp"
#include "core/config/duplicate_keys.hpp"
#include "core/config/jsonc.hpp"
#include "core/config/read_text_file.hpp"
#include "core/config/schema_validator.hpp"
#include "core/sandbox/policy_problems.hpp"

namespace errand::config {

namespace json = boost::json;

namespace {

void run_plugin_validator(const PluginContribution& contribution, const json::object& effective,
                          std::vector<Problem>& problems) {
  if (!contribution.validate) return;
  sdk::ConfigProblems found;
  try {
    contribution.validate(effective, found);
  } catch (const std::exception& e) {
    problems.push_back({"", "the plugin `" + contribution.plugin +
                                "` failed while checking the configuration (" + e.what() +
                                "); fix or remove the plugin"});
    return;
  } catch (...) {
    problems.push_back({"", "the plugin `" + contribution.plugin +
                                "` failed while checking the configuration; fix or remove the "
                                "plugin"});
    return;
  }
  for (const auto& problem : found.all()) problems.push_back({problem.path, problem.message});
}

}  // namespace

LoadResult load_config_text(std::string_view text, const std::filesystem::path& source,
                            const json::object& schema,
                            const std::vector<PluginContribution>& contributions) {
  auto parsed = parse_jsonc(text);
  if (!parsed) return std::vector<Problem>{parsed.error()};
  if (!parsed->is_object()) {
    return std::vector<Problem>{{"", "the configuration must be a JSON object ({ ... }), not " +
                                         std::string(parsed->is_array() ? "a list" : "a value") +
                                         "; see config.example.json"}};
  }

  std::vector<Problem> problems;
  for (const auto& path : find_duplicate_keys(text)) {
    problems.push_back({path, "`" + path +
                                  "` is written more than once in the same object; only the "
                                  "last would count, so remove the others"});
  }
  const std::size_t before_schema = problems.size();
  validate_against_schema(*parsed, schema, "", problems);
  const bool well_typed = problems.size() == before_schema;

  json::value effective = *parsed;
  fill_schema_defaults(effective, schema);
  fill_derived_defaults(effective.as_object());
  check_across_keys(effective.as_object(), problems);
  sandbox::check_sandbox_policy(effective.as_object(), well_typed, contributions, problems);

  if (well_typed) {
    for (const auto& contribution : contributions)
      run_plugin_validator(contribution, effective.as_object(), problems);
  }
  if (!problems.empty()) return problems;
  return LoadedConfig{source, std::move(parsed->as_object()), std::move(effective.as_object())};
}

LoadResult load_config_file(const std::filesystem::path& file, const json::object& schema,
                            const std::vector<PluginContribution>& contributions) {
  auto text = read_text_file(file);
  if (!text) return std::vector<Problem>{{"", text.error().message}};
  return load_config_text(*text, file, schema, contributions);
}

std::vector<std::filesystem::path> plugin_dirs_leniently(const std::filesystem::path& file) {
  std::vector<std::filesystem::path> dirs;
  auto text = read_text_file(file);
  if (!text) return dirs;
  auto parsed = parse_jsonc(*text);
  if (!parsed || !parsed->is_object()) return dirs;
  const auto* listed = sdk::find_setting(parsed->as_object(), "plugins.path");
  if (listed == nullptr || !listed->is_array()) return dirs;
  for (const auto& entry : listed->as_array()) {
    if (entry.is_string() && entry.as_string().starts_with('/'))
      dirs.emplace_back(std::string(entry.as_string()));
  }
  return dirs;
}

}  // namespace errand::config
