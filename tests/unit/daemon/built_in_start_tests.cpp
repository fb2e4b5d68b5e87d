// Where the built-in default comes in: only when no configuration file is found and none is
// named, never over a file; what errand run prints of it and what it refuses without a key; and
// --save-config, which writes it where errand looks first.

#include "core/daemon/built_in_start.hpp"
#include "core/daemon/configuration_source.hpp"
#include "core/log/logging.hpp"
#include "core/secrets/secret_scrubber.hpp"
#include "tests/support/daemon_harness.hpp"
#include "tests/support/temp_dir.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <fstream>

using namespace errand;
using namespace errand::test;
using Catch::Matchers::ContainsSubstring;
namespace fs = std::filesystem;

namespace {

constexpr const char* kKey = "sk-ant-built-in-0123456789";

// An environment whose every place to look is an empty directory of the test's own.
struct Places {
  TempDir dir;
  daemon::RunEnvironment env;

  Places() {
    for (const char* sub : {"home", "etc", "cwd", "plugins"}) fs::create_directories(dir / sub);
    env.home = (dir / "home").string();
    env.etc_dir = dir / "etc";
    env.cwd = dir / "cwd";
    env.default_plugin_dir = dir / "plugins";
    env.embedded_inputs.home = env.home;
  }
  fs::path first_place() const { return dir / "home" / ".config" / "errand" / "config.json"; }
};

daemon::ConfigurationSource discover(const daemon::RunEnvironment& env) {
  static secrets::SecretScrubber scrubber;
  static log::Logging logging(scrubber);
  return daemon::ConfigurationSource::discover(env, *logging.logger("test"));
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("no file and a key: the built-in default loads, with no file behind it",
          "[built-in-default]") {
  Places places;
  places.env.embedded_inputs.variables["ANTHROPIC_API_KEY"] = kKey;
  const auto source = discover(places.env);
  REQUIRE(source.embedded);
  const auto loaded = source.load();
  INFO((loaded ? std::string() : config::format_problems(loaded.error())));
  REQUIRE(loaded.has_value());
  CHECK(loaded->source.empty());
  CHECK_THAT(source.origin(), ContainsSubstring("built-in default"));
  CHECK_THAT(source.origin(), ContainsSubstring("ANTHROPIC_API_KEY"));
  const auto told = daemon::describe_built_in_start(source);
  CHECK_THAT(told,
             ContainsSubstring("claude-agent-acp with the provider key in ANTHROPIC_API_KEY"));
  CHECK_THAT(told, ContainsSubstring("errand run --save-config (writes " +
                                     places.first_place().string() + ")"));
  CHECK(told.find(kKey) == std::string::npos);
}

TEST_CASE("a file found anywhere errand looks wins over the key", "[built-in-default]") {
  Places places;
  places.env.embedded_inputs.variables["ANTHROPIC_API_KEY"] = kKey;
  write_text(places.dir / "cwd" / "config.json", "{}");
  const auto source = discover(places.env);
  CHECK_FALSE(source.embedded);
  CHECK(daemon::describe_built_in_start(source).empty());
  const auto loaded = source.load();
  REQUIRE(loaded.has_error());  // the file's own problems, not the default
  CHECK_THAT(config::format_problems(loaded.error()), ContainsSubstring("projectRoot"));
}

TEST_CASE("ERRAND_CONFIG naming a missing file is refused, never replaced by the default",
          "[built-in-default]") {
  Places places;
  places.env.embedded_inputs.variables["ANTHROPIC_API_KEY"] = kKey;
  places.env.errand_config = (places.dir / "absent.json").string();
  const auto source = discover(places.env);
  CHECK_FALSE(source.embedded);
  const auto loaded = source.load();
  REQUIRE(loaded.has_error());
  const auto message = config::format_problems(loaded.error());
  CHECK_THAT(message, ContainsSubstring("no configuration file was found"));
  CHECK_THAT(message, ContainsSubstring("absent.json"));
}

TEST_CASE("no file and no key: the refusal names where errand looked and both keys",
          "[built-in-default]") {
  Places places;
  const auto loaded = discover(places.env).load();
  REQUIRE(loaded.has_error());
  const auto message = config::format_problems(loaded.error());
  CHECK_THAT(message, ContainsSubstring(places.first_place().string()));
  CHECK_THAT(message, ContainsSubstring("ERRAND_CONFIG"));
  CHECK_THAT(message, ContainsSubstring("ANTHROPIC_API_KEY (claude-agent-acp)"));
  CHECK_THAT(message, ContainsSubstring("OPENAI_API_KEY (codex-acp)"));
}

TEST_CASE(
    "errand run --save-config writes the default where errand looks first, then finds it there",
    "[built-in-default]") {
  Places places;
  places.env.embedded_inputs.variables["OPENAI_API_KEY"] = kKey;
  const auto saved = daemon::save_built_in_default(places.env);
  INFO((saved ? std::string() : saved.error().message));
  REQUIRE(saved.has_value());
  CHECK(*saved == places.first_place());
  const auto source = discover(places.env);
  CHECK(source.file == places.first_place());
  CHECK_FALSE(source.embedded);
  const auto loaded = source.load();
  INFO((loaded ? std::string() : config::format_problems(loaded.error())));
  REQUIRE(loaded.has_value());
  CHECK(loaded->effective.at("agent").at("kind") == "codex-acp");

  // Again: the file is there now, so nothing is written.
  const auto again = daemon::save_built_in_default(places.env);
  REQUIRE(again.has_error());
  CHECK_THAT(again.error().message,
             ContainsSubstring("already exists at " + places.first_place().string()));
}

TEST_CASE("errand run --save-config with no key says which keys would do", "[built-in-default]") {
  Places places;
  const auto saved = daemon::save_built_in_default(places.env);
  REQUIRE(saved.has_error());
  CHECK_THAT(saved.error().message, ContainsSubstring("ANTHROPIC_API_KEY"));
  CHECK_FALSE(fs::exists(places.first_place()));
}

TEST_CASE("errand run with no file and no key exits 2 saying both ways to start",
          "[built-in-default]") {
  // /etc/errand/config.json is looked at too, and this test cannot move it.
  REQUIRE_FALSE(fs::exists("/etc/errand/config.json"));
  DaemonHarness h;
  std::vector<std::string> env;
  for (const auto& variable : h.environment())
    if (!variable.starts_with("ERRAND_CONFIG=")) env.push_back(variable);
  const auto refused = run_to_end(h.argv({"run"}), env, h.dir().path());
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.err, ContainsSubstring("no configuration file was found"));
  CHECK_THAT(refused.err, ContainsSubstring("ANTHROPIC_API_KEY"));

  // With a key it prints the default it starts on, without the key, before this harness's
  // plugin directory (which has no sandbox-bailey) stops it.
  env.push_back(std::string("ANTHROPIC_API_KEY=") + kKey);
  const auto started = run_to_end(h.argv({"run"}), env, h.dir().path());
  CHECK(started.exit_code == 2);
  CHECK_THAT(started.out, ContainsSubstring("starts on its built-in default: claude-agent-acp"));
  CHECK_THAT(started.err, ContainsSubstring("sandbox-bailey"));
  CHECK(started.out.find(kKey) == std::string::npos);
  CHECK(started.err.find(kKey) == std::string::npos);
}
