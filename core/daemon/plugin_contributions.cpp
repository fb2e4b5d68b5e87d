#include "core/daemon/plugin_contributions.hpp"

#include <boost/json/serialize.hpp>
#include <cstddef>
#include <errand/sdk/config_problems.hpp>

namespace errand::daemon {

namespace {

void collect_problem(void* ctx, const char* path, const char* message) {
  auto* problems = static_cast<sdk::ConfigProblems*>(ctx);
  problems->add(path != nullptr ? path : "", message != nullptr ? message : "");
}

}  // namespace

std::vector<config::PluginContribution> contributions_of(const plugins::PluginRegistry& registry) {
  std::vector<config::PluginContribution> out;
  for (const auto& record : registry.records()) {
    if (!record.loaded || record.entry == nullptr) continue;
    const auto& entry = *record.entry;
    config::PluginContribution c;
    c.plugin = record.name;
    const bool has_schema = entry.struct_size >= offsetof(errand_plugin_entry_v1_t, config_schema) +
                                                     sizeof(entry.config_schema);
    const bool has_validator =
        entry.struct_size >=
        offsetof(errand_plugin_entry_v1_t, validate_config) + sizeof(entry.validate_config);
    if (has_schema && entry.config_schema != nullptr) c.schema_json = entry.config_schema;
    c.reads = record.config_keys.reads;
    if (has_validator && entry.validate_config != nullptr) {
      const auto validate = entry.validate_config;
      // The validator sees what the plugin will be handed, so a key it checks but did not
      // declare fails its tests rather than passing unchecked.
      c.validate = [validate, keys = record.config_keys.all()](const boost::json::object& effective,
                                                               sdk::ConfigProblems& problems) {
        const std::string text = boost::json::serialize(config::plugin_view(effective, keys));
        validate(text.c_str(), &collect_problem, &problems);
      };
    }
    const bool has_policy_validator =
        entry.struct_size >=
        offsetof(errand_plugin_entry_v1_t, validate_policy) + sizeof(entry.validate_policy);
    if (has_policy_validator && entry.validate_policy != nullptr) {
      const auto validate = entry.validate_policy;
      c.validate_policy = [validate](const sdk::SandboxPolicy& policy,
                                     sdk::ConfigProblems& problems) {
        validate(&policy, &collect_problem, &problems);
      };
    }
    if (!c.schema_json.empty() || !c.reads.empty() || c.validate || c.validate_policy)
      out.push_back(std::move(c));
  }
  return out;
}

}  // namespace errand::daemon
