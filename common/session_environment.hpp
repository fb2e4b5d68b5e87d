#pragma once

// The environment of a session whose agent runs from an image (podman, incus): errand's floor,
// then what the core set, then sandbox.env, a later value for a name replacing an earlier one.
// Nothing of the daemon's own environment is in it. With a tools directory, PATH leads with
// tools_inside, where the backend mounts it.

#include <errand/sdk/sandbox_backend.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace errand::common {

inline constexpr const char* kImageSessionHome = "/state/home";
inline constexpr const char* kImageSessionPath = "/usr/local/bin:/usr/bin:/bin";

std::vector<std::pair<std::string, std::string>> image_session_variables(
    const sdk::LaunchSpec& spec, std::string_view tools_inside = sdk::kToolsMountPoint);

// HOME, PATH and LANG: the floor's names, whose values errand writes itself and are never
// secrets, so a backend may put them where other processes can read them (a command line).
bool is_floor_variable(std::string_view name);

}  // namespace errand::common
