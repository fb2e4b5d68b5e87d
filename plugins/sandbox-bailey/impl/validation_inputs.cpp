#include "plugins/sandbox-bailey/impl/validation_inputs.hpp"

#include <errand/sdk/config_values.hpp>

namespace errand::bailey {

namespace {

using sdk::find_setting;
using sdk::make_error;

sdk::Result<std::string> string_or_empty(const boost::json::object& c, const char* key) {
  const auto* v = find_setting(c, key);
  if (v == nullptr) return std::string();
  if (!v->is_string()) return make_error(std::string(key) + " must be a string");
  return std::string(v->as_string());
}

sdk::Result<std::vector<std::string>> strings(const boost::json::object& c, const char* key) {
  std::vector<std::string> out;
  const auto* v = find_setting(c, key);
  if (v == nullptr) return out;
  if (!v->is_array()) return make_error(std::string(key) + " must be a list of strings");
  for (const auto& item : v->as_array()) {
    if (!item.is_string()) return make_error(std::string(key) + " must be a list of strings");
    out.emplace_back(item.as_string());
  }
  return out;
}

}  // namespace

sdk::Result<ValidationInputs> read_validation_inputs(const boost::json::object& c) {
  ValidationInputs s;
  if (const auto* backend = find_setting(c, "sandbox.backend"))
    s.bailey_selected = backend->is_string() && backend->as_string() == "bailey";
  for (auto [key, slot] : {std::pair{"sandbox.policyExtra.read", &s.extra_read},
                           std::pair{"sandbox.policyExtra.write", &s.extra_write},
                           std::pair{"sandbox.policyExtra.execute", &s.extra_execute},
                           std::pair{"sandbox.pathExtra", &s.path_extra}}) {
    auto list = strings(c, key);
    if (!list) return list.error();
    *slot = std::move(*list);
  }
  if (const auto* env = find_setting(c, "sandbox.env")) {
    if (!env->is_object()) return make_error("sandbox.env must map names to strings");
    for (const auto& [name, value] : env->as_object()) {
      if (!value.is_string())
        return make_error("sandbox.env." + std::string(name) + " must be a string");
      s.env.emplace_back(std::string(name), std::string(value.as_string()));
    }
  }
  if (const auto* providers = find_setting(c, "agent.providers");
      providers && providers->is_object())
    for (const auto& [name, def] : providers->as_object())
      if (def.is_object())
        if (const auto* cn = def.as_object().if_contains("credentialName"); cn && cn->is_string())
          s.credential_names.emplace_back(cn->as_string());
  auto project = string_or_empty(c, "projectRoot");
  auto state = string_or_empty(c, "stateDir");
  if (!project) return project.error();
  if (!state) return state.error();
  s.project_root = *project;
  s.state_dir = *state;
  return s;
}

}  // namespace errand::bailey
