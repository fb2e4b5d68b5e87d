// Asking the host's kage which providers it knows, against the fake agent standing in for kage.

#include "core/agent/kage_catalog.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/agent/acp_harness.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace errand::agent;
using namespace errand::agent::test;

namespace {

errand::sdk::Result<KageCatalog> discover(
    const errand::test::TempDir& dir, EnvironmentList extra,
    std::chrono::milliseconds timeout = std::chrono::seconds(10),
    std::vector<std::string> argv = {fake_agent_path()}) {
  Loop loop;
  CapturedLog log;
  KageDiscoveryOptions options;
  options.argv = std::move(argv);
  if (!extra.empty()) options.environment = kage_discovery_environment(dir.path());
  for (auto& e : extra) options.environment.push_back(std::move(e));
  options.timeout = timeout;
  return loop.run(discover_kage_providers(loop.strand(), options, log.logger()));
}

}  // namespace

TEST_CASE("the host's kage says which providers it knows over _kage/models/list") {
  errand::test::TempDir dir;
  const auto catalog = discover(dir, {{"FAKE_AGENT_PROVIDERS", "anthropic,zai,openrouter"}});
  REQUIRE(catalog);
  REQUIRE(catalog->providers.size() == 3);
  CHECK(catalog->knows("anthropic"));
  CHECK(catalog->knows("zai"));
  CHECK_FALSE(catalog->knows("openai"));
  REQUIRE(catalog->providers[1].models.size() == 1);
  CHECK(catalog->providers[1].models[0].id == "zai-model");
  CHECK(catalog->providers[1].models[0].context == 200000u);
}

TEST_CASE("without an environment given, kage is asked from a private scratch home") {
  errand::test::TempDir dir;
  const auto catalog = discover(dir, {});
  REQUIRE(catalog);
  CHECK(catalog->knows("anthropic"));
  CHECK(catalog->knows("openai"));
}

TEST_CASE("a kage that does not know _kage/models/list is too old and stops the start") {
  errand::test::TempDir dir;
  const auto catalog = discover(dir, {{"FAKE_AGENT_MODELS_LIST", "unknown"}});
  REQUIRE_FALSE(catalog);
  CHECK(catalog.error().message.rfind("errand cannot start: the host's kage is too old to say "
                                      "which providers it knows",
                                      0) == 0);
  CHECK(catalog.error().message.find("install a newer kage") != std::string::npos);
}

TEST_CASE("a kage that never answers _kage/models/list is refused when the wait runs out") {
  errand::test::TempDir dir;
  const auto started = std::chrono::steady_clock::now();
  const auto catalog =
      discover(dir, {{"FAKE_AGENT_MODELS_LIST", "silent"}}, std::chrono::milliseconds(500));
  REQUIRE_FALSE(catalog);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(8));
  CHECK(catalog.error().message.find("did not answer _kage/models/list within 500 ms") !=
        std::string::npos);
  CHECK(catalog.error().message.find("too old, install a newer kage") != std::string::npos);
}

TEST_CASE("a missing kage stops the start and says where errand looked") {
  errand::test::TempDir dir;
  const auto catalog = discover(dir, {{"HOME", dir.path().string()}}, std::chrono::seconds(5),
                                {(dir / "no-such-kage").string(), "rpc"});
  REQUIRE_FALSE(catalog);
  CHECK(catalog.error().message.find("cannot run") != std::string::npos);
  CHECK(catalog.error().message.find("Install kage on this host") != std::string::npos);
}

TEST_CASE("a program that is not an ACP agent fails the handshake with what it said") {
  errand::test::TempDir dir;
  const auto catalog = discover(dir, {{"HOME", dir.path().string()}}, std::chrono::seconds(5),
                                {"/bin/sh", "-c", "echo kage: unknown command rpc >&2; exit 2"});
  REQUIRE_FALSE(catalog);
  CHECK(catalog.error().message.find("did not complete the ACP handshake") != std::string::npos);
  CHECK(catalog.error().message.find("kage: unknown command rpc") != std::string::npos);
}
