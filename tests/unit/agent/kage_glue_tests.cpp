// The kage glue: its config.toml for providers kage knows and ones it does not, the refusals,
// the environment (stand-ins, never keys) and the install directories it grants.

#include "core/agent/kage_glue.hpp"
#include "core/agent/provider_routes.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/support/temp_dir.hpp"

#include <sys/stat.h>
#include <algorithm>
#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <filesystem>

using namespace errand::agent;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

json::object config_with(const char* agent_json, const char* egress_mode = "proxy") {
  auto agent = json::parse(agent_json).as_object();
  return {{"agent", agent},
          {"sandbox", json::object{{"egress", json::object{{"mode", egress_mode}}}}}};
}

const char* two_providers = R"({
  "kind": "kage", "command": ["kage", "rpc"], "provider": "anthropic", "model": "sonnet:high",
  "aliases": {"sonnet": "claude-sonnet-4-5"},
  "providers": {
    "anthropic": {"credential": "sk-real-anthropic-key", "credentialName": "ANTHROPIC_API_KEY"},
    "zai": {"credential": "real-zai-key-123", "credentialName": "ZAI_API_KEY",
            "baseUrl": "https://api.z.ai/api/paas/v4", "kind": "openai",
            "models": ["glm-5", {"id": "glm-5.3-flash", "name": "GLM flash", "context": 128000}]}
  }
})";

KageCatalog catalog_of(std::initializer_list<const char*> ids) {
  KageCatalog catalog;
  for (const char* id : ids) catalog.providers.push_back({id, id, {}});
  return catalog;
}

errand::sdk::BrokerSession broker_session() {
  errand::sdk::BrokerSession broker;
  broker.proxy_credential = "errand-session-" + std::string(64, 'a');
  broker.stand_ins["anthropic"] = {"ANTHROPIC_API_KEY", "errand-session-" + std::string(64, 'b')};
  broker.stand_ins["zai"] = {"ZAI_API_KEY", "errand-session-" + std::string(64, 'c')};
  return broker;
}

std::string env_value(const AgentLaunch& launch, const std::string& name) {
  for (const auto& [key, value] : launch.env)
    if (key == name) return value;
  return "<absent>";
}

}  // namespace

TEST_CASE("kage's config.toml overrides a provider kage knows and declares one it does not",
          "[key:agent.providers.<name>.models]"
          "[key:agent.providers.<name>.kind]"
          "[key:agent.providers.<name>.credentialName]") {
  const auto config = config_with(two_providers);
  const auto broker = broker_session();
  const auto routes = provider_routes(config, &broker);
  const auto toml = render_kage_config(routes, catalog_of({"anthropic", "openai"}));
  REQUIRE(toml);
  CHECK(*toml ==
        "# Written by errand when the session launched; edits are replaced at the next launch.\n"
        "\n"
        "[providers.anthropic]\n"
        "base_url = \"http://127.0.0.1:3128/provider/anthropic\"\n"
        "\n"
        "[providers.custom.zai]\n"
        "kind = \"openai\"\n"
        "base_url = \"http://127.0.0.1:3128/provider/zai\"\n"
        "api_key_env = \"ZAI_API_KEY\"\n"
        "display_name = \"zai\"\n"
        "\n"
        "[[providers.custom.zai.models]]\n"
        "id = \"glm-5\"\n"
        "name = \"glm-5\"\n"
        "\n"
        "[[providers.custom.zai.models]]\n"
        "id = \"glm-5.3-flash\"\n"
        "name = \"GLM flash\"\n"
        "context = 128000\n");
}

TEST_CASE("a kage launch under the broker holds stand-ins and relay routes, never a key",
          "[key:agent.model]"
          "[key:agent.aliases.<name>]"
          "[key:agent.provider]") {
  const auto config = config_with(two_providers);
  const auto broker = broker_session();
  errand::test::TempDir dir;
  fs::create_directories(dir / "bin");
  errand::test::write_file(dir / "bin" / "kage", "#!/bin/sh\n");
  ::chmod((dir / "bin" / "kage").c_str(), 0755);

  KageGlue glue(catalog_of({"anthropic", "openai"}));
  LaunchInputs inputs;
  inputs.config = &config;
  inputs.routes = provider_routes(config, &broker);
  inputs.search_path = (dir / "bin").string();
  auto launch = glue.prepare(inputs);
  REQUIRE(launch);
  // Run by the path found here, never looked up by name inside the sandbox.
  CHECK(launch->argv == std::vector<std::string>{(dir / "bin" / "kage").string(), "rpc", "-m",
                                                 "anthropic/claude-sonnet-4-5"});
  REQUIRE(launch->config_options.size() == 1);
  CHECK(launch->config_options[0] == std::pair<std::string, std::string>{"thinking", "high"});
  CHECK(env_value(*launch, "KAGE_HOME") == "/state/kage");
  CHECK(env_value(*launch, "ANTHROPIC_API_KEY") == broker.stand_ins.at("anthropic").value);
  CHECK(env_value(*launch, "ZAI_API_KEY") == broker.stand_ins.at("zai").value);
  REQUIRE(launch->files.size() == 1);
  CHECK(launch->files[0].relative_path == "kage/kage/config.toml");
  CHECK(launch->agent_dirs == std::vector<fs::path>{dir / "bin"});
  fs::create_directories(dir / "state");
  REQUIRE(write_launch_files(dir / "state", *launch));
  CHECK(errand::test::read_file(dir / "state" / "kage" / "kage" / "config.toml") ==
        launch->files[0].content);

  std::string everything;
  for (const auto& [k, v] : launch->env) everything += k + "=" + v + "\n";
  for (const auto& f : launch->files) everything += f.content;
  for (const auto& a : launch->argv) everything += a;
  CHECK(everything.find("sk-real-anthropic-key") == std::string::npos);
  CHECK(everything.find("real-zai-key-123") == std::string::npos);
  CHECK(everything.find("api.z.ai") == std::string::npos);
}

TEST_CASE("under egress open kage holds the real keys and each provider's own endpoint") {
  const auto config = config_with(two_providers, "open");
  const auto routes = provider_routes(config, nullptr);
  const auto toml = render_kage_config(routes, catalog_of({"anthropic"}));
  REQUIRE(toml);
  CHECK(toml->find("[providers.anthropic]") == std::string::npos);
  CHECK(toml->find("base_url = \"https://api.z.ai/api/paas/v4\"") != std::string::npos);
  KageGlue glue(catalog_of({"anthropic"}));
  LaunchInputs inputs{&config, routes, "", "", false, ""};
  auto launch = glue.prepare(inputs);
  REQUIRE(launch);
  CHECK(env_value(*launch, "ANTHROPIC_API_KEY") == "sk-real-anthropic-key");
  CHECK(launch->agent_dirs.empty());
}

TEST_CASE("a brokered provider without a broker session gets no key and no route") {
  const auto config = config_with(two_providers);
  const auto routes = provider_routes(config, nullptr);
  for (const auto& route : routes) {
    CHECK(route.brokered);
    CHECK(route.credential.empty());
    CHECK(route.base_url.empty());
  }
  KageGlue glue(catalog_of({"anthropic"}));
  LaunchInputs inputs{&config, routes, "", "", false, ""};
  auto launch = glue.prepare(inputs);
  REQUIRE(launch);
  CHECK(env_value(*launch, "ANTHROPIC_API_KEY") == "<absent>");
  CHECK(launch->files[0].content.find("base_url") == std::string::npos);
}

TEST_CASE("a provider kage reserves is refused, at start-up and at launch") {
  const auto config = config_with(R"({
    "kind": "kage", "provider": "acp",
    "providers": {"acp": {"credential": "k", "credentialName": "ACP_KEY",
                          "baseUrl": "https://example.test"}}})");
  KageGlue glue(catalog_of({"anthropic"}));
  errand::sdk::ConfigProblems problems;
  glue.check(config, problems);
  REQUIRE(problems.all().size() == 1);
  CHECK(problems.all()[0].path == "agent.providers.acp");
  CHECK(problems.all()[0].message ==
        "kage reserves the provider name \"acp\" for itself, so every session would fail at "
        "launch; give this provider another name");
  LaunchInputs inputs{&config, provider_routes(config, nullptr), "", "", false, ""};
  auto launch = glue.prepare(inputs);
  REQUIRE_FALSE(launch);
  CHECK(launch.error().kind == errand::sdk::Error::Kind::refused);
  CHECK(launch.error().message.find("reserves the provider name \"acp\"") != std::string::npos);
}

TEST_CASE("kage's checks name what a provider definition lacks") {
  const auto config = config_with(R"({
    "kind": "kage", "provider": "local",
    "providers": {"local": {"credential": "k"}, "custom": {"credential": "k2",
                  "credentialName": "C", "baseUrl": "https://example.test"}}})",
                                  "open");
  KageGlue glue(catalog_of({"anthropic"}));
  errand::sdk::ConfigProblems problems;
  glue.check(config, problems);
  std::vector<std::string> paths;
  for (const auto& p : problems.all()) paths.push_back(p.path);
  CHECK(paths == std::vector<std::string>{"agent.providers.local.credentialName",
                                          "agent.providers.local.baseUrl",
                                          "agent.providers.custom"});
}

TEST_CASE("the kage glue grants the directory kage is found in and where its link leads") {
  errand::test::TempDir dir;
  fs::create_directories(dir / "bin");
  fs::create_directories(dir / "opt" / "kage-1.2" / "bin");
  errand::test::write_file(dir / "opt" / "kage-1.2" / "bin" / "kage", "#!/bin/sh\n");
  ::chmod((dir / "opt" / "kage-1.2" / "bin" / "kage").c_str(), 0755);
  fs::create_symlink(dir / "opt" / "kage-1.2" / "bin" / "kage", dir / "bin" / "kage");
  const auto config = config_with(two_providers);
  const auto broker = broker_session();
  KageGlue glue(catalog_of({"anthropic"}));
  LaunchInputs inputs{&config, provider_routes(config, &broker),        "", "",
                      true,    "/nonexistent:" + (dir / "bin").string()};
  auto launch = glue.prepare(inputs);
  REQUIRE(launch);
  CHECK(launch->agent_dirs ==
        std::vector<fs::path>{dir / "bin", fs::canonical(dir / "opt" / "kage-1.2" / "bin")});
  CHECK(launch->argv.front() == (dir / "bin" / "kage").string());

  inputs.search_path = (dir / "opt").string();
  auto missing = glue.prepare(inputs);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message ==
        "the agent program \"kage\" is not on the daemon's PATH, so a session has nothing to run; "
        "install it or name it with its full path in agent.command");
}

TEST_CASE("an install directory that is the daemon's home or holds its configuration is refused") {
  errand::test::TempDir dir;
  const auto home = dir / "home" / "errand";
  errand::test::write_file(home / "kage", "#!/bin/sh\n");
  ::chmod((home / "kage").c_str(), 0755);
  errand::test::write_file(dir / "etc" / "errand" / "kage", "#!/bin/sh\n");
  ::chmod((dir / "etc" / "errand" / "kage").c_str(), 0755);
  errand::test::write_file(dir / "etc" / "errand" / "config.json", "{}");
  const auto config = config_with(two_providers);
  const auto broker = broker_session();
  KageGlue glue(catalog_of({"anthropic"}));
  LaunchInputs inputs{&config, provider_routes(config, &broker), "", "", true, home.string()};
  inputs.home = home.string() + "/";
  inputs.config_file = dir / "etc" / "errand" / "config.json";

  auto in_home = glue.prepare(inputs);
  REQUIRE_FALSE(in_home);
  CHECK(in_home.error().kind == errand::sdk::Error::Kind::refused);
  CHECK(in_home.error().message.find("is the daemon's home") != std::string::npos);

  // A home below the install directory would be exposed with it.
  inputs.home = home / "user";
  auto holds_home = glue.prepare(inputs);
  REQUIRE_FALSE(holds_home);
  CHECK(holds_home.error().message.find("holds the daemon's home") != std::string::npos);

  // An install inside the home (~/.local/bin, say) exposes only itself.
  inputs.home = dir / "home";
  CHECK(glue.prepare(inputs));

  inputs.home = dir / "elsewhere";
  inputs.search_path = (dir / "etc" / "errand").string();
  auto with_config = glue.prepare(inputs);
  REQUIRE_FALSE(with_config);
  CHECK(with_config.error().message.find("holds the configuration file") != std::string::npos);

  inputs.config_file = dir / "config.json";
  CHECK(glue.prepare(inputs));
}

TEST_CASE("make_agent_glue picks the glue agent.kind names", "[key:agent.kind]") {
  const auto kage = config_with(two_providers);
  CHECK_FALSE(make_agent_glue(kage, nullptr));
  const auto catalog = catalog_of({"anthropic"});
  auto glue = make_agent_glue(kage, &catalog);
  REQUIRE(glue);
  CHECK((*glue)->kind() == "kage");
  auto acp = config_with(R"({"kind": "acp", "command": ["x"], "provider": "p", "providers": {}})");
  auto generic = make_agent_glue(acp, nullptr);
  REQUIRE(generic);
  CHECK((*generic)->kind() == "acp");
}

TEST_CASE("kage takes the house rules as --system, and says it took them") {
  const auto config = config_with(two_providers, "open");
  KageGlue glue(catalog_of({"anthropic"}));
  LaunchInputs inputs{&config, provider_routes(config, nullptr), "", "", false, ""};
  auto without = glue.prepare(inputs);
  REQUIRE(without);
  CHECK_FALSE(without->took_house_rules);
  CHECK(std::find(without->argv.begin(), without->argv.end(), "--system") == without->argv.end());
  inputs.house_rules = "Run the tests.\nNever push to main.";
  auto with = glue.prepare(inputs);
  REQUIRE(with);
  CHECK(with->took_house_rules);
  const auto at = std::find(with->argv.begin(), with->argv.end(), "--system");
  REQUIRE(at != with->argv.end());
  REQUIRE(at + 1 != with->argv.end());
  CHECK(*(at + 1) == "Run the tests.\nNever push to main.");
}
