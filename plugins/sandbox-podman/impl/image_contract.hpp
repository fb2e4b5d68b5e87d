#pragma once

// The errand.contract label a podman image carries (common/image_contract.hpp says what it
// holds). podman reads it as a label; the parser is the one every backend shares.

#include <string_view>

#include "common/image_contract.hpp"

namespace errand::podman {

inline constexpr int kContractVersion = common::kImageContractVersion;
inline constexpr const char* kContractLabel = "errand.contract";

using common::ImageContract;

inline sdk::Result<ImageContract> parse_image_contract(std::string_view label) {
  return common::parse_image_contract(label, "errand.contract label");
}

}  // namespace errand::podman
