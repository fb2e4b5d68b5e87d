#include "core/agent/kage_reserved_names.hpp"

#include <algorithm>
#include <string>

namespace errand::agent {

sdk::Result<void> check_kage_provider_name(std::string_view name) {
  if (std::find(kage_reserved_providers.begin(), kage_reserved_providers.end(), name) ==
      kage_reserved_providers.end())
    return {};
  return sdk::make_error(
      "kage reserves the provider name \"" + std::string(name) +
          "\" for itself, so every session would fail at launch; give this provider another "
          "name",
      sdk::Error::Kind::refused);
}

}  // namespace errand::agent
