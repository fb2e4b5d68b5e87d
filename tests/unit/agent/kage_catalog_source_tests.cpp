// Which kage's catalog the core uses: the image's declaration when the backend runs the agent
// from its image, the host's kage's answer when it runs from the host's install.

#include "core/agent/kage_catalog_source.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/agent/acp_harness.hpp"

#include <catch2/catch_test_macros.hpp>

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

sdk::Result<KageCatalog> catalog_for(KageDiscoveryOptions options,
                                     const sdk::BackendCapabilities& backend, CapturedLog& log) {
  Loop loop;
  return loop.run(kage_catalog_for(loop.strand(), std::move(options), backend, log.logger()));
}

}  // namespace

TEST_CASE("with the agent in the image, kage's providers are the image's, not the host kage's") {
  errand::test::TempDir dir;
  sdk::BackendCapabilities image;
  image.agent_in_image = true;
  image.image_kage_providers = std::vector<std::string>{"openrouter"};
  CapturedLog log;
  const auto catalog = catalog_for(host_kage(dir), image, log);
  REQUIRE(catalog);
  REQUIRE(catalog->providers.size() == 1);
  CHECK(catalog->knows("openrouter"));
  CHECK_FALSE(catalog->knows("anthropic"));
  CHECK(log.contains("the host's kage is not asked"));

  // Not asked at all: a host with no kage installed makes no difference.
  auto absent = host_kage(dir);
  absent.argv = {(dir.path() / "no-kage-here").string()};
  CapturedLog quiet;
  const auto without_host_kage = catalog_for(absent, image, quiet);
  REQUIRE(without_host_kage);
  CHECK(without_host_kage->knows("openrouter"));
}

TEST_CASE("with the agent from the host's install, the host's kage is asked") {
  errand::test::TempDir dir;
  sdk::BackendCapabilities host;
  host.agent_from_host_install = true;
  host.image_kage_providers = std::vector<std::string>{"openrouter"};  // not this backend's
  CapturedLog log;
  const auto catalog = catalog_for(host_kage(dir), host, log);
  REQUIRE(catalog);
  CHECK(catalog->knows("anthropic"));
  CHECK(catalog->knows("zai"));
  CHECK_FALSE(catalog->knows("openrouter"));
}

TEST_CASE("an image whose providers the backend could not read stops the start, saying so") {
  errand::test::TempDir dir;
  sdk::BackendCapabilities image;
  image.agent_in_image = true;
  CapturedLog log;
  const auto refused = catalog_for(host_kage(dir), image, log);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("errand.contract label") != std::string::npos);
  CHECK(refused.error().message.find("image/build") != std::string::npos);
}
