#include "core/agent/auth_method_choice.hpp"

#include <algorithm>

namespace errand::agent {

std::optional<AuthMethod> choose_auth_method(const std::vector<AuthMethod>& offered,
                                             const std::vector<std::string>& variables) {
  const auto carried = [&](const std::string& name) {
    return std::find(variables.begin(), variables.end(), name) != variables.end();
  };
  for (const auto& method : offered)
    if (method.type == "env_var" && !method.variables.empty() &&
        std::all_of(method.variables.begin(), method.variables.end(), carried))
      return method;
  return std::nullopt;
}

std::string describe_auth_methods(const std::vector<AuthMethod>& offered) {
  std::string text;
  for (const auto& method : offered) {
    if (!text.empty()) text += ", ";
    text += method.id;
    std::string detail;
    if (!method.variables.empty()) {
      detail = "reads ";
      for (std::size_t i = 0; i < method.variables.size(); ++i)
        detail += (i == 0 ? "" : " and ") + method.variables[i];
    } else if (!method.name.empty()) {
      detail = method.name;
    }
    if (!detail.empty()) text += " (" + detail + ")";
  }
  return text;
}

}  // namespace errand::agent
