// Which kage's catalog the core uses: the image's declaration when the backend runs the agent
// from its image, the host's kage's answer when it runs from the host's install.

#include "core/agent/kage_catalog_source.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/agent/acp_harness.hpp"

#include <catch2/catch_test_macros.hpp>
#include <errand/sdk/extensions/image_kage_catalog.hpp>

using namespace errand::agent;
using namespace errand::agent::test;
namespace sdk = errand::sdk;

namespace {

// The fake agent standing in for the host's kage, knowing anthropic and zai.
KageDiscoveryOptions host_kage(const errand::test::TempDir& dir) {
  KageDiscoveryOptions options;
  options.argv = {fake_agent_path()};
  options.environment = kage_discovery_environment(dir.path());
  options.environment.emplace_back("FAKE_AGENT_PROVIDERS", "anthropic,zai");
  return options;
}

// A backend of the real SDK interface whose image declares the given providers, through the
// ImageKageCatalog extension as podman's and Incus's do.
class ImageBackend final : public sdk::SandboxBackend, public sdk::ImageKageCatalog {
 public:
  explicit ImageBackend(std::optional<std::vector<std::string>> providers)
      : providers_(std::move(providers)) {}
  sdk::EnforcementReport probe(const sdk::SandboxPolicy&) noexcept override { return {}; }
  boost::asio::awaitable<sdk::Result<std::unique_ptr<sdk::SandboxProcess>>> launch(
      sdk::LaunchSpec) override {
    co_return sdk::make_error("not launched in this test");
  }
  sdk::SweepReport sweep_orphans() noexcept override { return {}; }
  void* extension(std::string_view name) noexcept override {
    return sdk::offer_extension<sdk::ImageKageCatalog>(this, name);
  }
  std::optional<std::vector<std::string>> image_kage_providers() const override {
    return providers_;
  }

 private:
  std::optional<std::vector<std::string>> providers_;
};

sdk::Result<KageCatalog> catalog_for(KageDiscoveryOptions options, sdk::SandboxBackend& backend,
                                     const sdk::BackendCapabilities& capabilities,
                                     CapturedLog& log) {
  Loop loop;
  return loop.run(kage_catalog_for(loop.strand(), std::move(options),
                                   image_kage_of(backend, capabilities), log.logger()));
}

}  // namespace

TEST_CASE("with the agent in the image, kage's providers are the image's, not the host kage's") {
  errand::test::TempDir dir;
  sdk::BackendCapabilities image;
  image.agent_in_image = true;
  ImageBackend backend(std::vector<std::string>{"openrouter"});
  CapturedLog log;
  const auto catalog = catalog_for(host_kage(dir), backend, image, log);
  REQUIRE(catalog);
  REQUIRE(catalog->providers.size() == 1);
  CHECK(catalog->knows("openrouter"));
  CHECK_FALSE(catalog->knows("anthropic"));
  CHECK(log.contains("the host's kage is not asked"));

  // Not asked at all: a host with no kage installed makes no difference.
  auto absent = host_kage(dir);
  absent.argv = {(dir.path() / "no-kage-here").string()};
  CapturedLog quiet;
  const auto without_host_kage = catalog_for(absent, backend, image, quiet);
  REQUIRE(without_host_kage);
  CHECK(without_host_kage->knows("openrouter"));
}

TEST_CASE("with the agent from the host's install, the host's kage is asked") {
  errand::test::TempDir dir;
  sdk::BackendCapabilities host;
  host.agent_from_host_install = true;
  ImageBackend backend(std::vector<std::string>{"openrouter"});  // not asked: no image
  CapturedLog log;
  const auto catalog = catalog_for(host_kage(dir), backend, host, log);
  REQUIRE(catalog);
  CHECK(catalog->knows("anthropic"));
  CHECK(catalog->knows("zai"));
  CHECK_FALSE(catalog->knows("openrouter"));
}

TEST_CASE("an image whose providers the backend could not read stops the start, saying so") {
  errand::test::TempDir dir;
  sdk::BackendCapabilities image;
  image.agent_in_image = true;
  ImageBackend backend(std::nullopt);
  CapturedLog log;
  const auto refused = catalog_for(host_kage(dir), backend, image, log);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("errand.contract label") != std::string::npos);
  CHECK(refused.error().message.find("image/build") != std::string::npos);
}
