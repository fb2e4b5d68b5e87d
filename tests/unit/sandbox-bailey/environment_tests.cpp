#include <stdlib.h>

#include <algorithm>

#include <catch2/catch_test_macros.hpp>

#include "plugins/sandbox-bailey/impl/environment.hpp"

using namespace errand::bailey;
using errand::sdk::LaunchSpec;

namespace {

std::string value_of(const std::vector<std::pair<std::string, std::string>>& list,
                     const std::string& name) {
  for (const auto& [n, v] : list)
    if (n == name) return v;
  return "(absent)";
}

LaunchSpec base() {
  LaunchSpec s;
  s.agent_dirs = {"/opt/kage/bin"};
  s.policy.path_extra = {"/opt/toolchains/bin"};
  return s;
}

}  // namespace

TEST_CASE("PATH puts the agent's dirs, then pathExtra, ahead of the system") {
  CHECK(agent_path(base()) ==
        "/state/home/bin:/opt/kage/bin:/opt/toolchains/bin:/usr/local/bin:/usr/bin:/bin:"
        "/usr/local/sbin:/usr/sbin:/sbin");
}

TEST_CASE("the environment is built from the floor, sandbox.env and the core, nothing else") {
  ::setenv("ERRAND_UNIT_DAEMON_ONLY", "must-not-appear", 1);
  auto spec = base();
  spec.policy.env_extra = {{"CARGO_HOME", "/var/cache/errand/cargo"},
                           {"LANG", "en_GB.UTF-8"},
                           {"HTTPS_PROXY", "operator-value"}};
  spec.env = {{"HTTPS_PROXY", "http://errand:cred@127.0.0.1:3128"},
              {"ANTHROPIC_API_KEY", "errand-session-0123"}};
  auto env = build_environment(spec, {"ANTHROPIC_API_KEY"});
  ::unsetenv("ERRAND_UNIT_DAEMON_ONLY");
  REQUIRE(env.has_value());
  CHECK(value_of(env->fixed, "HOME") == "/state/home");
  CHECK(value_of(env->fixed, "TMPDIR") == "/tmp");
  CHECK(value_of(env->fixed, "CARGO_HOME") == "/var/cache/errand/cargo");
  CHECK(value_of(env->fixed, "LANG") == "en_GB.UTF-8");
  // A name the daemon sets keeps the daemon's value, and its value never goes to disk.
  CHECK(value_of(env->fixed, "HTTPS_PROXY") == "(absent)");
  CHECK(value_of(env->passed, "HTTPS_PROXY") == "http://errand:cred@127.0.0.1:3128");
  CHECK(value_of(env->passed, "ANTHROPIC_API_KEY") == "errand-session-0123");
  for (const auto* list : {&env->fixed, &env->passed})
    for (const auto& [name, value] : *list) {
      CHECK(name != "ERRAND_UNIT_DAEMON_ONLY");
      CHECK(value != "must-not-appear");
    }
}

TEST_CASE("sandbox.env may not set PATH, HOME or a provider credential name") {
  for (const char* name : {"PATH", "HOME"}) {
    auto spec = base();
    spec.policy.env_extra = {{name, "/x"}};
    auto env = build_environment(spec, {});
    REQUIRE_FALSE(env.has_value());
    CHECK(env.error().kind == errand::sdk::Error::Kind::refused);
    CHECK(env.error().message.find(std::string("sandbox.env sets ") + name) == 0);
  }
  auto spec = base();
  spec.policy.env_extra = {{"OPENAI_API_KEY", "sk-real"}};
  auto env = build_environment(spec, {"ANTHROPIC_API_KEY", "OPENAI_API_KEY"});
  REQUIRE_FALSE(env.has_value());
  CHECK(env.error().message.find("carries a provider credential") != std::string::npos);
}

TEST_CASE("malformed names and NUL bytes are refused wherever they come from") {
  for (const auto& bad : std::vector<std::pair<std::string, std::string>>{
           {"1ABC", "x"}, {"A-B", "x"}, {"", "x"}, {"OK", std::string("a\0b", 3)}}) {
    auto spec = base();
    spec.policy.env_extra = {bad};
    CHECK_FALSE(build_environment(spec, {}).has_value());
    auto from_core = base();
    from_core.env = {bad};
    CHECK_FALSE(build_environment(from_core, {}).has_value());
  }
  auto spec = base();
  spec.env = {{"PATH", "/evil"}};
  CHECK_FALSE(build_environment(spec, {}).has_value());
}

TEST_CASE("the tools directory leads PATH when there is one, and is absent otherwise") {
  auto spec = base();
  spec.tools_dir = "/usr/lib/errand/tools";
  CHECK(agent_path(spec) ==
        "/usr/lib/errand/tools:/state/home/bin:/opt/kage/bin:/opt/toolchains/bin:/usr/local/bin:"
        "/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin");
  // It holds errand's programs, not the agent: a bare agent command is not looked up there.
  const auto dirs = host_program_directories(spec);
  CHECK(std::find(dirs.begin(), dirs.end(), "/usr/lib/errand/tools") == dirs.end());
  CHECK(agent_path(base()).find("tools") == std::string::npos);
}
