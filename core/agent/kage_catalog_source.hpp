#pragma once

// Where kage's catalog comes from. A backend that runs the agent from its image (podman) runs
// the image's kage, whose providers the image declares; the host's kage may know others, or not
// be installed at all, so it is asked only when the agent runs from the host's own install.

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/agent/kage_catalog.hpp"

namespace errand::agent {

// What the backend says of the kage in its image (its ImageKageCatalog extension).
struct ImageKage {
  bool agent_in_image = false;  // capabilities.agent_in_image
  std::optional<std::vector<std::string>> providers;
};

ImageKage image_kage_of(sdk::SandboxBackend& backend, const sdk::BackendCapabilities& capabilities);

// The catalog the backend declares for the kage in its image: the providers only, since the
// declaration lists no models. An error when it declared none: nothing then says what that
// kage knows.
sdk::Result<KageCatalog> kage_catalog_from_image(const ImageKage& image);

// The image's declaration when the agent is in the image, else the answer of the host's kage,
// asked with options.
boost::asio::awaitable<sdk::Result<KageCatalog>> kage_catalog_for(
    boost::asio::any_io_executor strand, KageDiscoveryOptions options, ImageKage image,
    std::shared_ptr<spdlog::logger> log);

}  // namespace errand::agent
