#include "core/plugins/instance.hpp"

#include "core/plugins/registry.hpp"
#include "tests/support/host_parts.hpp"
#include "tests/unit/plugins/plugin_test_support.hpp"

#include <errand/sdk/chat_transport.hpp>
#include <errand/sdk/sandbox_backend.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <optional>

using Catch::Matchers::ContainsSubstring;
using errand::plugins::create_instance;
using errand::plugins::PluginRecord;
using errand::plugins::PluginRegistry;
using errand::plugins::testing::CapturedLog;
using errand::plugins::testing::fixture_dir;
using errand::plugins::testing::wrong_major_refusal;
namespace sdk = errand::sdk;

namespace {

struct Host {
  boost::asio::io_context io;
  CapturedLog log;
  errand::test::HostParts parts;
  sdk::HostServices services;
  PluginRegistry registry;

  Host()
      : services(parts.services(io.get_executor(), log.shared(), {})),
        registry(PluginRegistry::scan({fixture_dir()}, log.logger())) {}

  const PluginRecord& plugin(std::string_view name) {
    const auto* record = registry.find("sandbox", name);
    REQUIRE(record != nullptr);
    return *record;
  }
};

}  // namespace

TEST_CASE("the gappy backend creates a working instance whose probe reports its gap") {
  Host host;
  auto instance = create_instance<sdk::SandboxBackend>(host.plugin("gappy"), host.services);
  REQUIRE(instance.has_value());
  REQUIRE(*instance != nullptr);
  const auto report = (*instance)->probe(sdk::SandboxPolicy{});
  CHECK(report.backend == "gappy");
  REQUIRE(report.gaps.size() == 1);
  CHECK(report.gaps[0].guarantee == "per-session memory limit");
  CHECK(report.gaps[0].reason ==
        "this fixture backend enforces nothing; it exists to test refusals");
  CHECK((*instance)->sweep_orphans().complete);
}

TEST_CASE("the gappy backend's launch refuses through the host's executor") {
  Host host;
  auto instance = create_instance<sdk::SandboxBackend>(host.plugin("gappy"), host.services);
  REQUIRE(instance.has_value());
  std::optional<sdk::Result<std::unique_ptr<sdk::SandboxProcess>>> launched;
  sdk::LaunchSpec spec;
  spec.session_id = "s-1";
  boost::asio::co_spawn(
      host.io, (*instance)->launch(spec),
      [&](std::exception_ptr failure, sdk::Result<std::unique_ptr<sdk::SandboxProcess>> result) {
        REQUIRE_FALSE(failure);
        launched.emplace(std::move(result));
      });
  host.io.run();
  REQUIRE(launched.has_value());
  REQUIRE(launched->has_error());
  CHECK(launched->error().kind == sdk::Error::Kind::refused);
  CHECK_THAT(launched->error().message,
             ContainsSubstring("sandbox-gappy cannot launch session s-1"));
}

TEST_CASE("an instance is released through the plugin's destroy") {
  Host host;
  {
    auto instance = create_instance<sdk::SandboxBackend>(host.plugin("gappy"), host.services);
    REQUIRE(instance.has_value());
    CHECK_THAT(host.log.text(), !ContainsSubstring("sandbox-gappy instance destroyed"));
  }
  CHECK_THAT(host.log.text(), ContainsSubstring("debug sandbox-gappy instance destroyed"));
}

TEST_CASE("a constructor that throws becomes the error, with its message") {
  Host host;
  auto instance = create_instance<sdk::SandboxBackend>(host.plugin("throwing"), host.services);
  REQUIRE(instance.has_error());
  CHECK(instance.error().message ==
        "sandbox-throwing refuses to start: it is a fixture whose constructor always throws");
}

TEST_CASE("an instance of the wrong kind is not created") {
  Host host;
  auto instance = create_instance<sdk::ChatTransport>(host.plugin("gappy"), host.services);
  REQUIRE(instance.has_error());
  CHECK(instance.error().kind == sdk::Error::Kind::refused);
  CHECK_THAT(instance.error().message, ContainsSubstring("is a sandbox plugin, not a chat one"));
  CHECK_THAT(host.log.text(), !ContainsSubstring("instance destroyed"));
}

TEST_CASE("a refused plugin has no instance, and the error repeats why") {
  Host host;
  const PluginRecord* refused = nullptr;
  for (const auto& record : host.registry.records()) {
    if (record.path.filename() == "fixture-wrong-major.so") refused = &record;
  }
  REQUIRE(refused != nullptr);
  auto instance = create_instance<sdk::SandboxBackend>(*refused, host.services);
  REQUIRE(instance.has_error());
  CHECK(instance.error().kind == sdk::Error::Kind::refused);
  CHECK_THAT(instance.error().message, ContainsSubstring("was not loaded: refused"));
  CHECK_THAT(instance.error().message, ContainsSubstring(wrong_major_refusal()));
}
