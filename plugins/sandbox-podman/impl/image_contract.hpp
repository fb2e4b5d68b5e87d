#pragma once

// The errand.contract label an image carries: which version of errand's image contract it was
// built to (the mount points /workspace, /state and /errand, the agent run as the daemon's own
// uid through keep-id) and the providers its kage knows, which the daemon reads instead of
// asking the host's kage. image/build writes it.

#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace errand::podman {

inline constexpr int kContractVersion = 1;
inline constexpr const char* kContractLabel = "errand.contract";

struct ImageContract {
  int version = 0;
  std::vector<std::string> providers;
};

// A label that is not this contract's JSON, or names another version, is an error saying what
// is wrong with it.
sdk::Result<ImageContract> parse_image_contract(std::string_view label);

}  // namespace errand::podman
