#include <boost/json.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <errand/sdk/config_values.hpp>
#include "core/config/load.hpp"
#include "core/config/schema.hpp"

#include "core/sandbox/inert_backend_keys.hpp"
#include "plugins/sandbox-podman/impl/config_schema.hpp"

using namespace errand;
using Catch::Matchers::ContainsSubstring;
namespace json = boost::json;

namespace {

// The schema errand composes when sandbox-podman is on the plugin path, whatever the backend.
const std::vector<config::PluginContribution>& with_podman() {
  static const std::vector<config::PluginContribution> plugins{
      {"sandbox-podman", podman::kConfigSchema, {}, {}, {}}};
  return plugins;
}

json::object composed_schema() {
  auto schema = config::compose_schema(with_podman());
  REQUIRE(schema.has_value());
  return *schema;
}

config::LoadedConfig load(const std::string& sandbox_block) {
  const std::string text = R"({"projectRoot": "/srv/errand/projects", "stateDir": "/var/lib/errand",
    "chat": {"token": "bot-token-0123456789", "channelId": "1001", "allowedUserIds": ["42"]},
    "agent": {"provider": "anthropic", "providers": {"anthropic": {
      "kind": "anthropic", "credentialName": "ANTHROPIC_API_KEY", "credential": "sk-ant-0123456789"}}},
    "sandbox": )" + sandbox_block +
                           "}";
  auto loaded =
      config::load_config_text(text, "/test/config.json", composed_schema(), with_podman());
  if (!loaded) FAIL(config::format_problems(loaded.error()));
  return *loaded;
}

}  // namespace

TEST_CASE("sandbox.image is podman's key: its default comes from podman's fragment",
          "[key:sandbox.image]") {
  const auto loaded = load(R"({"backend": "podman"})");
  const auto* image = sdk::find_setting(loaded.effective, "sandbox.image");
  REQUIRE(image != nullptr);
  CHECK(image->as_string() == "localhost/errand-agent:latest");
  const auto schema = composed_schema();
  const auto* sandbox = config::find_section_schema(schema, "sandbox");
  REQUIRE(sandbox != nullptr);
  CHECK(sandbox->at("properties").at("image").at("x-errand-plugin") == "sandbox-podman");
}

TEST_CASE("without the podman plugin sandbox.image is a key errand does not know") {
  const std::string text = R"({"projectRoot": "/srv/errand/projects", "stateDir": "/var/lib/errand",
    "chat": {"token": "bot-token-0123456789", "channelId": "1001", "allowedUserIds": ["42"]},
    "agent": {"provider": "anthropic", "providers": {"anthropic": {
      "kind": "anthropic", "credentialName": "ANTHROPIC_API_KEY", "credential": "sk-ant-0123456789"}}},
    "sandbox": {"image": "localhost/agent:1"}})";
  const auto loaded =
      config::load_config_text(text, "/test/config.json", config::core_schema(), {});
  REQUIRE(loaded.has_error());
  REQUIRE(loaded.error().size() == 1);
  CHECK(loaded.error().front().path == "sandbox.image");
}

TEST_CASE("sandbox.image written under bailey is accepted and reported as doing nothing",
          "[key:sandbox.image]") {
  const auto loaded = load(R"({"backend": "bailey", "image": "localhost/agent:1"})");
  const auto notes = sandbox::inert_backend_keys(composed_schema(), loaded.written, "bailey");
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes.front(), ContainsSubstring("sandbox.image does nothing under bailey"));
  CHECK_THAT(notes.front(), ContainsSubstring("podman"));

  sdk::EnforcementReport report;
  report.backend = "bailey";
  sandbox::note_inert_backend_keys(composed_schema(), loaded.written, "bailey", report);
  CHECK(report.notes == notes);
}

TEST_CASE("sandbox.image is not inert under podman, nor when only its default is in effect",
          "[key:sandbox.image]") {
  const auto podman = load(R"({"backend": "podman", "image": "localhost/agent:1"})");
  CHECK(sandbox::inert_backend_keys(composed_schema(), podman.written, "podman").empty());
  // The default fills the effective configuration under every backend; only what the operator
  // wrote is reported.
  const auto bailey = load(R"({"backend": "bailey"})");
  CHECK(sandbox::inert_backend_keys(composed_schema(), bailey.written, "bailey").empty());
}

TEST_CASE("the core's own sandbox keys are never reported as another backend's") {
  const auto loaded = load(R"({"backend": "bailey", "memory": "2g", "egress": {"mode": "proxy"}})");
  CHECK(sandbox::inert_backend_keys(composed_schema(), loaded.written, "bailey").empty());
}
