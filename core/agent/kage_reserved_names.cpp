#include "core/agent/kage_reserved_names.hpp"

#include <algorithm>

namespace errand::agent {

std::optional<std::string> kage_reserved_name_refusal(std::string_view name) {
  if (std::find(kage_reserved_providers.begin(), kage_reserved_providers.end(), name) ==
      kage_reserved_providers.end())
    return std::nullopt;
  return "kage reserves the provider name \"" + std::string(name) +
         "\" for itself, so every session would fail at launch; give this provider another "
         "name";
}

}  // namespace errand::agent
