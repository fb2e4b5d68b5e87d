#include <catch2/catch_test_macros.hpp>
#include <errand/sdk/config_values.hpp>

#include "core/config/settings.hpp"
#include "core/sandbox/policy_from_config.hpp"
#include "core/sandbox/sandbox_choice.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using errand::sdk::find_setting;

namespace {

boost::json::value setting(const boost::json::object& config, std::string_view dotted) {
  const auto* found = find_setting(config, dotted);
  INFO("setting " << dotted);
  REQUIRE(found != nullptr);
  return *found;
}

}  // namespace

TEST_CASE("defaults are filled for every key left out", "[config][defaults]") {
  const auto effective = effective_of(minimal_config());
  CHECK(setting(effective, "logging.level") == "info");
  CHECK(setting(effective, "plugins.path") == boost::json::array{});
  CHECK(setting(effective, "chat.transport") == "discord");
  CHECK(setting(effective, "chat.blockedUserIds") == boost::json::array{});
  CHECK(setting(effective, "chat.startOnMention") == false);
  // The bundled agent that speaks the provider's dialect, run by its program's name.
  CHECK(setting(effective, "agent.kind") == "claude-agent-acp");
  CHECK(setting(effective, "agent.command") == boost::json::array{"claude-agent-acp"});
  CHECK(setting(effective, "agent.baseUrlVariable") == "ANTHROPIC_BASE_URL");
  CHECK(setting(effective, "agent.permissions") == "allow");
  CHECK(setting(effective, "sandbox.backend") == "bailey");
  CHECK(setting(effective, "sandbox.requireFullEnforcement") == true);
  CHECK(setting(effective, "sandbox.network") == "restricted");
  CHECK(setting(effective, "sandbox.egressPorts") == boost::json::array{443});
  CHECK(setting(effective, "sandbox.listenPorts") == boost::json::array{});
  CHECK(setting(effective, "sandbox.memory") == "80%");
  CHECK(setting(effective, "sandbox.cpus") == "80%");
  CHECK(setting(effective, "sandbox.shmSize") == "256m");
  CHECK(setting(effective, "sandbox.gracePeriodMs") == 10000);
  CHECK(setting(effective, "limits.maxQueueWaitMs") == 900000);
  CHECK(setting(effective, "timeouts.idleMs") == 1800000);
  CHECK(setting(effective, "timeouts.abortMs") == 15000);
  CHECK(setting(effective, "output.postDiffs") == true);
  CHECK(setting(effective, "output.maxAttachmentBytes") == 10 * 1024 * 1024);
  CHECK(setting(effective, "output.maxAttachmentsPerMessage") == 10);
  CHECK(setting(effective, "agent.providers.anthropic.maxConcurrentRequests") == 4);
  CHECK(setting(effective, "agent.providers.anthropic.broker") == true);
  CHECK(setting(effective, "agent.providers.anthropic.strictCapabilities") == false);
}

TEST_CASE("optional blocks left out stay absent", "[config][defaults]") {
  const auto effective = effective_of(minimal_config());
  CHECK(find_setting(effective, "web") == nullptr);
  CHECK(find_setting(effective, "github") == nullptr);
  CHECK(find_setting(effective, "agent.delegate") == nullptr);
  CHECK(find_setting(effective, "shutdown") == nullptr);
  CHECK(find_setting(effective, "sandbox.image") == nullptr);
  CHECK(find_setting(effective, "agent.rulesPath") == nullptr);
  CHECK(find_setting(effective, "sandbox.policyExtra") == nullptr);
  CHECK(find_setting(effective, "sandbox.env") == nullptr);
}

TEST_CASE("an optional block written gets its own defaults", "[config][defaults]") {
  auto config = minimal_config();
  set(config, "sandbox.egress", boost::json::object{{"allow", boost::json::array{"example.com"}}});
  const auto effective = effective_of(config);
  CHECK(setting(effective, "sandbox.egress.mode") == "proxy");
  CHECK(setting(effective, "sandbox.egress.allowInternal") == boost::json::array{});
}

TEST_CASE("with no egress block, every host is allowed", "[config][defaults]") {
  const auto effective = effective_of(minimal_config());
  CHECK(setting(effective, "sandbox.egress.allow") == boost::json::array{"*"});
  CHECK(setting(effective, "sandbox.egress.mode") == "proxy");
  CHECK(setting(effective, "sandbox.egress.allowInternal") == boost::json::array{});
}

TEST_CASE("an egress block without allow names no host", "[config][defaults]") {
  auto config = minimal_config();
  set(config, "sandbox.egress",
      boost::json::object{{"allowInternal", boost::json::array{"10.1.2.0/24"}}});
  const auto effective = effective_of(config);
  CHECK(setting(effective, "sandbox.egress.allow") == boost::json::array{});
  CHECK(setting(effective, "sandbox.egress.mode") == "proxy");
  CHECK(setting(effective, "sandbox.egress.allowInternal") == boost::json::array{"10.1.2.0/24"});
}

TEST_CASE("written values are kept and the written object is left as parsed",
          "[config][defaults]") {
  auto config = minimal_config();
  set(config, "limits.maxLiveSessions", 9);
  const auto loaded = load_core(config);
  REQUIRE(loaded.has_value());
  CHECK(setting(loaded->effective, "limits.maxLiveSessions") == 9);
  CHECK(setting(loaded->effective, "limits.maxConcurrentTurns") == 2);
  CHECK(loaded->written == config);
}

TEST_CASE("a provider's placement follows its kind when left out", "[config][defaults]") {
  auto config = minimal_config();
  set(config, "agent.providers.anthropic.kind", "anthropic");
  set(config, "agent.providers.openai",
      boost::json::object{{"credential", "sk-openai-0123456789"}, {"kind", "openai"}});
  set(config, "agent.providers.local",
      boost::json::object{{"credential", "x"}, {"kind", "openai"}, {"placement", "x-api-key"}});
  const auto effective = effective_of(config);
  CHECK(setting(effective, "agent.providers.anthropic.placement") == "x-api-key");
  CHECK(setting(effective, "agent.providers.openai.placement") == "bearer");
  CHECK(setting(effective, "agent.providers.local.placement") == "x-api-key");
}

TEST_CASE("an acp agent keeps the command it was given", "[config][defaults]") {
  auto config = minimal_config();
  set(config, "agent.kind", "acp");
  set(config, "agent.command", boost::json::array{"my-agent", "--acp"});
  const auto effective = effective_of(config);
  CHECK(setting(effective, "agent.command") == boost::json::array{"my-agent", "--acp"});
}

TEST_CASE("a whole number written with a fraction part becomes an integer", "[config][defaults]") {
  auto config = minimal_config();
  set(config, "limits.maxQueueLength", 16.0);
  const auto effective = effective_of(config);
  CHECK(setting(effective, "limits.maxQueueLength").is_int64());
  CHECK(setting(effective, "limits.maxQueueLength") == 16);
}

TEST_CASE("the typed settings read the effective configuration", "[config][defaults]") {
  auto config = minimal_config();
  set(config, "plugins.path", boost::json::array{"/opt/errand/plugins"});
  set(config, "sandbox.egress.mode", "open");
  const auto effective = effective_of(config);
  const auto settings = settings_from(effective);
  const auto choice = errand::sandbox::sandbox_choice(effective);
  const auto policy = errand::sandbox::policy_from_config(effective);
  REQUIRE(policy);
  CHECK(settings.project_root == "/srv/errand/projects");
  CHECK(settings.state_dir == "/var/lib/errand");
  REQUIRE(settings.plugin_dirs.size() == 1);
  CHECK(settings.plugin_dirs[0] == "/opt/errand/plugins");
  CHECK(settings.log_level == "info");
  CHECK(settings.chat_transport == "discord");
  CHECK(choice.backend == "bailey");
  CHECK(choice.require_full_enforcement);
  CHECK(policy->network == errand::sdk::NetworkMode::restricted);
  CHECK(policy->egress == errand::sdk::EgressMode::open);
  CHECK(settings.limits.max_concurrent_turns == 2);
  CHECK(settings.limits.max_live_sessions == 4);
  CHECK(settings.limits.max_queue_length == 32);
  CHECK(settings.limits.max_queue_wait_ms == 900000);
  CHECK(settings.timeouts.idle_ms == 1800000);
  CHECK(settings.timeouts.startup_ms == 120000);
  CHECK(settings.timeouts.question_ms == 300000);
  CHECK(settings.timeouts.abort_ms == 15000);
}

TEST_CASE("typed settings refuse an object that did not come from a load", "[config][defaults]") {
  CHECK_THROWS_AS(settings_from(minimal_config()), std::invalid_argument);
}
