#pragma once

// The provider names kage keeps for itself. Its own file so that the configuration checks can
// refuse them without linking the rest of the kage glue.

#include <array>
#include <errand/sdk/result.hpp>
#include <string_view>

namespace errand::agent {

// Provider names kage keeps for itself, so a configuration using one would make every session
// fail at launch. "custom" is the table custom providers are declared under.
inline constexpr std::array<std::string_view, 2> kage_reserved_providers{"acp", "custom"};

// Refuses (kind refused) a provider name kage keeps for itself. The configuration checks refuse
// it on every load, at start and on each reload, and a launch checks again.
sdk::Result<void> check_kage_provider_name(std::string_view name);

}  // namespace errand::agent
