#include "core/agent/kage_catalog_source.hpp"

#include <errand/sdk/extensions/image_kage_catalog.hpp>

namespace errand::agent {

ImageKage image_kage_of(sdk::SandboxBackend& backend,
                        const sdk::BackendCapabilities& capabilities) {
  if (!capabilities.agent_in_image) return {};
  // A backend without the extension has read no list, which is refused below as before.
  const auto* catalog = sdk::find_extension<sdk::ImageKageCatalog>(backend);
  return {true, catalog != nullptr ? catalog->image_kage_providers() : std::nullopt};
}

sdk::Result<KageCatalog> kage_catalog_from_image(const ImageKage& image) {
  if (!image.providers)
    return sdk::make_error(
        "errand cannot start: the sandbox backend runs the agent from its image but did not say "
        "which providers the image's kage knows (for podman, the image's errand.contract label); "
        "rebuild the image with image/build, or give it that label");
  KageCatalog catalog;
  for (const auto& id : *image.providers) catalog.providers.push_back({id, id, {}});
  return catalog;
}

boost::asio::awaitable<sdk::Result<KageCatalog>> kage_catalog_for(
    boost::asio::any_io_executor strand, KageDiscoveryOptions options, ImageKage image,
    std::shared_ptr<spdlog::logger> log) {
  if (!image.agent_in_image)
    co_return co_await discover_kage_providers(std::move(strand), std::move(options), log);
  auto catalog = kage_catalog_from_image(image);
  if (catalog)
    log->info(
        "the image's kage knows {} provider(s), as the image declares; the host's kage is "
        "not asked",
        catalog->providers.size());
  co_return catalog;
}

}  // namespace errand::agent
