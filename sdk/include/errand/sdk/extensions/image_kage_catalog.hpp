#pragma once

// Offered by a sandbox backend whose agent runs from its image (capabilities.agent_in_image)
// and whose image declares which providers its kage knows. The core takes kage's catalog from
// here instead of asking the host's kage, which may know other providers or not be installed.

#include <errand/sdk/extension.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::sdk {

class BOOST_SYMBOL_VISIBLE ImageKageCatalog {
 public:
  static constexpr std::string_view kExtensionName = "errand.image-kage-catalog.1";

  // The provider ids the image's kage knows, as the image declared them when probe() last
  // read it; none when no such list was read.
  virtual std::optional<std::vector<std::string>> image_kage_providers() const = 0;

 protected:
  ~ImageKageCatalog() = default;
};

}  // namespace errand::sdk
