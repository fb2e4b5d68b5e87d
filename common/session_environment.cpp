#include "common/session_environment.hpp"

namespace errand::common {

std::vector<std::pair<std::string, std::string>> image_session_variables(
    const sdk::LaunchSpec& spec, std::string_view tools_inside) {
  // errand's own programs (LaunchSpec::tools_dir) come first, so nothing in the image or the
  // agent's home shadows them.
  const std::string path = spec.tools_dir ? std::string(tools_inside) + ":" + kImageSessionPath
                                          : std::string(kImageSessionPath);
  std::vector<std::pair<std::string, std::string>> vars{
      {"HOME", kImageSessionHome}, {"PATH", path}, {"LANG", "C.UTF-8"}};
  const auto set = [&](const std::string& name, const std::string& value) {
    for (auto& [k, v] : vars)
      if (k == name) {
        v = value;
        return;
      }
    vars.emplace_back(name, value);
  };
  for (const auto& [k, v] : spec.env) set(k, v);
  for (const auto& [k, v] : spec.policy.env_extra) set(k, v);
  return vars;
}

bool is_floor_variable(std::string_view name) {
  return name == "HOME" || name == "PATH" || name == "LANG";
}

}  // namespace errand::common
