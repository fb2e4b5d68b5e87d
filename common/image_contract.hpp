#pragma once

// The contract a session image declares, as JSON in an image property: which version of errand's
// image contract it was built to (the mount points /workspace, /state and /errand, the agent's
// uid) and the providers its kage knows, which the daemon reads instead of asking the host's
// kage. image/build writes it, as podman's errand.contract label and as Incus's
// user.errand.contract property; both backends read it with this one parser.

#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace errand::common {

inline constexpr int kImageContractVersion = 1;

struct ImageContract {
  int version = 0;
  std::vector<std::string> providers;

  bool operator==(const ImageContract&) const = default;
};

// A text that is not this contract's JSON, or names another version, is an error saying what is
// wrong with it; `property` names where the text was read (e.g. "errand.contract label").
sdk::Result<ImageContract> parse_image_contract(std::string_view text, std::string_view property);

}  // namespace errand::common
