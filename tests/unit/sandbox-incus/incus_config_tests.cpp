#include <unistd.h>

#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "core/config/load.hpp"
#include "core/config/plugin_view.hpp"
#include "core/config/schema.hpp"
#include "core/sandbox/inert_backend_keys.hpp"
#include "plugins/sandbox-incus/impl/incus_backend.hpp"
#include "plugins/sandbox-podman/impl/config_schema.hpp"
#include "tests/support/host_parts.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/sandbox-incus/incus_test_host.hpp"

using namespace errand;
using Catch::Matchers::ContainsSubstring;
namespace json = boost::json;

namespace {

const std::vector<config::PluginContribution>& plugins() {
  static const std::vector<config::PluginContribution> contributions{
      {"sandbox-incus",
       incus::kConfigSchema,
       &incus::IncusBackend::validate_config,
       &incus::IncusBackend::validate_policy,
       {}},
      {"sandbox-podman", podman::kConfigSchema, {}, {}, {}}};
  return contributions;
}

json::object composed_schema() {
  auto schema = config::compose_schema(plugins());
  REQUIRE(schema.has_value());
  return *schema;
}

config::LoadResult load(const std::string& sandbox_block) {
  const std::string text = R"({"projectRoot": "/srv/errand/projects", "stateDir": "/var/lib/errand",
    "chat": {"token": "bot-token-0123456789", "channelId": "1001", "allowedUserIds": ["42"]},
    "agent": {"provider": "anthropic", "providers": {"anthropic": {
      "kind": "anthropic", "credentialName": "ANTHROPIC_API_KEY", "credential": "sk-ant-0123456789"}}},
    "sandbox": )" + sandbox_block +
                           "}";
  return config::load_config_text(text, "/test/config.json", composed_schema(), plugins());
}

incus::IncusSettings settings_of(const std::string& sandbox_block) {
  auto loaded = load(sandbox_block);
  if (!loaded) FAIL(config::format_problems(loaded.error()));
  auto settings = incus::read_incus_settings(loaded->effective);
  if (!settings) FAIL(settings.error().message);
  return *settings;
}

std::string problems_of(const std::string& sandbox_block) {
  auto loaded = load(sandbox_block);
  REQUIRE_FALSE(loaded.has_value());
  return config::format_problems(loaded.error());
}

}  // namespace

TEST_CASE("sandbox.incus left out reads as the seed's defaults",
          "[key:sandbox.incus.project][key:sandbox.incus.image][key:sandbox.incus.guestUid]"
          "[key:sandbox.incus.socket][key:sandbox.incus.rootSize]") {
  const auto s = settings_of(R"({"backend": "incus"})");
  CHECK(s.project == "errand");
  CHECK(s.image == "errand-agent");
  CHECK(s.guest_uid == 1000);
  CHECK(s.socket == "/var/lib/incus/unix.socket");
  CHECK_FALSE(s.golden.has_value());
  CHECK(s.root_size_bytes == 20ull << 30);
}

TEST_CASE("each sandbox.incus key is read as written",
          "[key:sandbox.incus.project][key:sandbox.incus.image][key:sandbox.incus.golden]"
          "[key:sandbox.incus.rootSize][key:sandbox.incus.guestUid][key:sandbox.incus.socket]") {
  const auto s = settings_of(R"({"backend": "incus", "incus": {"project": "agents",
    "image": "errand-agent-2", "golden": "golden-1", "rootSize": "20g", "guestUid": 1500,
    "socket": "/run/incus/unix.socket"}})");
  CHECK(s.project == "agents");
  CHECK(s.image == "errand-agent-2");
  CHECK(s.golden == "golden-1");
  CHECK(s.root_size_bytes == (20ull << 30));
  CHECK(s.guest_uid == 1500);
  CHECK(s.socket == "/run/incus/unix.socket");
}

// The host hands the backend only the keys it declares; a key it reads but forgot to declare
// would be absent, and refused as missing.
TEST_CASE("what incus reads from the keys it declares is what it reads from the whole file") {
  auto loaded = load(R"({"backend": "incus", "incus": {"project": "agents",
    "image": "errand-agent-2", "golden": "golden-1", "rootSize": "20g", "guestUid": 1500,
    "socket": "/run/incus/unix.socket"}})");
  REQUIRE(loaded.has_value());
  auto keys = config::plugin_keys(incus::IncusBackend::config_schema, nullptr);
  REQUIRE(keys.has_value());
  const auto view = config::plugin_view(loaded->effective, keys->all());
  CHECK(view.size() == 1);
  CHECK(view.at("sandbox").as_object().size() == 1);
  auto s = incus::read_incus_settings(view);
  REQUIRE(s.has_value());
  CHECK(s->project == "agents");
  CHECK(s->image == "errand-agent-2");
  CHECK(s->golden == "golden-1");
  CHECK(s->root_size_bytes == (20ull << 30));
  CHECK(s->kept_total_bytes == (40ull << 30));
  CHECK(s->guest_uid == 1500);
  CHECK(s->socket == "/run/incus/unix.socket");
}

TEST_CASE("sandbox.incus values Incus or errand cannot take are refused at load",
          "[key:sandbox.incus.project][key:sandbox.incus.image][key:sandbox.incus.golden]"
          "[key:sandbox.incus.rootSize][key:sandbox.incus.guestUid][key:sandbox.incus.socket]"
          "[key:sandbox.incus.keptTotal]") {
  const struct {
    const char* block;
    const char* path;
  } cases[] = {
      {R"({"project": "a/b"})", "sandbox.incus.project"},
      {R"({"image": "x y"})", "sandbox.incus.image"},
      {R"({"golden": "1golden"})", "sandbox.incus.golden"},
      {R"({"golden": "golden-"})", "sandbox.incus.golden"},
      {R"({"rootSize": "lots"})", "sandbox.incus.rootSize"},
      {R"({"rootSize": 0})", "sandbox.incus.rootSize"},
      {R"({"keptTotal": "plenty"})", "sandbox.incus.keptTotal"},
      {R"({"keptTotal": -1})", "sandbox.incus.keptTotal"},
      {R"({"guestUid": 0})", "sandbox.incus.guestUid"},
      {R"({"guestUid": 70000})", "sandbox.incus.guestUid"},
      {R"({"socket": "unix.socket"})", "sandbox.incus.socket"},
      {R"({"mode": "fast"})", "sandbox.incus"},
  };
  for (const auto& c : cases) {
    INFO(c.block);
    CHECK_THAT(problems_of(std::string(R"({"backend": "incus", "incus": )") + c.block + "}"),
               ContainsSubstring(c.path));
  }
}

TEST_CASE("what the policy asks that incus cannot give is refused at load") {
  CHECK_THAT(problems_of(R"({"backend": "incus", "cpus": 0.004})"),
             ContainsSubstring("sandbox.cpus must be 0.01 or more"));
  CHECK_THAT(problems_of(R"({"backend": "incus", "env": {"TOKEN": "a\u0000b"}})"),
             ContainsSubstring("holds a NUL byte"));
  CHECK_THAT(problems_of(R"({"backend": "incus", "tmpSize": 0})"),
             ContainsSubstring("sandbox.tmpSize"));
  CHECK(load(R"({"backend": "incus", "cpus": 0.5})").has_value());
}

TEST_CASE("podman's sandbox.image is reported as doing nothing under incus",
          "[key:sandbox.image]") {
  const auto text = json::parse(R"({"sandbox": {"backend": "incus", "image": "x:latest"}})");
  const auto notes = sandbox::inert_backend_keys(composed_schema(), text.as_object(), "incus");
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], ContainsSubstring("sandbox.image does nothing under incus"));
  const auto own = json::parse(R"({"sandbox": {"backend": "incus", "incus": {"image": "a"}}})");
  CHECK(sandbox::inert_backend_keys(composed_schema(), own.as_object(), "incus").empty());
  CHECK_THAT(sandbox::inert_backend_keys(composed_schema(), own.as_object(), "podman").at(0),
             ContainsSubstring("sandbox.incus does nothing under podman"));
}

TEST_CASE(
    "the backend probes and sweeps through its requester, and needs errand-guest-init beside it") {
  auto loaded = load(R"({"backend": "incus"})");
  REQUIRE(loaded.has_value());
  boost::asio::io_context io;
  errand::test::HostParts parts;
  errand::test::TempDir dir;
  const auto socket = dir.path() / "unix.socket";
  errand::test::write_file(socket, "");  // access() is all the probe asks of it
  auto effective = loaded->effective;
  effective["sandbox"].as_object()["incus"].as_object()["socket"] = socket.string();
  std::vector<std::string> asked;
  incus::IncusRequester requester = [&](std::string_view verb, std::string_view path,
                                        std::optional<json::value>) -> sdk::Result<json::value> {
    asked.emplace_back(std::string(verb) + " " + std::string(path));
    const auto host = incus::test::seed_host();
    if (path == "/1.0") return **host.server;
    if (path == incus::kHostWarningsPath) return **host.warnings;
    if (path == "/1.0/projects/errand") return **host.project;
    if (path == "/1.0/profiles/default") return **host.profile;
    if (path == "/1.0/storage-pools/default") return **host.pool;
    if (path == "/1.0/images/aliases/errand-agent") return **host.alias;
    if (path.starts_with("/1.0/images/")) return **host.image;
    if (path == "/1.0/instances?recursion=1") return json::array{};
    return sdk::make_error("unexpected", sdk::Error::Kind::not_found);
  };
  auto policy = incus::test::seed_policy();
  const auto plugin_dir = dir.path() / "plugins";
  std::filesystem::create_directories(plugin_dir);
  const auto plugin = plugin_dir / "sandbox-incus.so";
  const auto state_dir = dir.path() / "state";
  SECTION("without errand-guest-init beside the plugin no session can start") {
    incus::IncusBackend lacking(
        parts.services(io.get_executor(), spdlog::default_logger(), effective, plugin, state_dir),
        requester);
    CHECK(incus::test::has_gap(lacking.probe(policy), "every incus session",
                               "errand-guest-init sits beside sandbox-incus.so"));
  }
  errand::test::write_file(plugin_dir / "errand-guest-init", "#!/bin/sh\n");
  std::filesystem::permissions(plugin_dir / "errand-guest-init", std::filesystem::perms::owner_all);
  incus::IncusBackend backend(
      parts.services(io.get_executor(), spdlog::default_logger(), effective, plugin, state_dir),
      requester);
  // Copied where the project's disk paths reach: under the daemon's state directory.
  CHECK(std::filesystem::exists(state_dir / "incus" / "errand-guest-init"));
  CHECK(::access((state_dir / "incus" / "errand-guest-init").c_str(), X_OK) == 0);
  CHECK_FALSE(backend.image_kage_providers().has_value());
  const auto report = backend.probe(policy);
  CHECK(std::find(asked.begin(), asked.end(), "GET /1.0/projects/errand") != asked.end());
  CHECK_FALSE(incus::test::has_gap(report, "every incus session", ""));
  CHECK_FALSE(incus::test::has_gap(report, "per-session disk budget", ""));
  CHECK(std::any_of(report.notes.begin(), report.notes.end(), [](const std::string& n) {
    return n.find("is measured, not enforced") != std::string::npos;
  }));
  CHECK(backend.image_kage_providers() == std::vector<std::string>{"anthropic"});
  const auto swept = backend.sweep_orphans();
  CHECK(swept.complete);
  CHECK(swept.removed == 0);
  CHECK(asked.back() == "GET /1.0/instances?recursion=1");
}
