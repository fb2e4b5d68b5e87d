// The daemon's plugins are read by errand's own program as a helper, so only the plugins the
// configuration uses are mapped into it: the helper's records are the scan's, code is mapped on
// first use and only from the file that was described, each plugin's configuration checks run
// in the helper with the verdicts in order, and a helper that fails or answers nonsense is an
// error naming it, never a registry with less in it.

#include "common/program_exchange.hpp"
#include "core/plugins/plugin_code.hpp"
#include "core/plugins/plugin_helper.hpp"
#include "core/plugins/registry.hpp"
#include "tests/support/test_paths.hpp"
#include "tests/unit/plugins/plugin_test_support.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <filesystem>

using Catch::Matchers::ContainsSubstring;
using errand::plugins::PluginHelper;
using errand::plugins::PluginRecord;
using errand::plugins::PluginRegistry;
using errand::plugins::testing::CapturedLog;
using errand::plugins::testing::fixture_dir;
using errand::plugins::testing::TempDir;

namespace {

PluginHelper errand_helper() {
  return {.program = errand::test::build_dir() / "bin" / "errand"};
}

std::filesystem::path daemon_fixture_dir() {
  return errand::test::build_dir() / "tests" / "daemon-plugins";
}

const PluginRecord& named(const PluginRegistry& registry, const std::string& name) {
  for (const auto& record : registry.records())
    if (record.loaded && record.name == name) return record;
  FAIL("no loaded plugin " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("the helper describes every file as the scan reads it, and maps nothing here") {
  CapturedLog scan_log, describe_log;
  const auto dirs = std::vector{fixture_dir(), daemon_fixture_dir()};
  const auto scanned = PluginRegistry::scan(dirs, scan_log.logger());
  const auto described = PluginRegistry::describe(dirs, describe_log.logger(), errand_helper());
  REQUIRE(described.has_value());
  REQUIRE(described->records().size() == scanned.records().size());
  REQUIRE(described->helper().has_value());
  CHECK_FALSE(scanned.helper().has_value());
  int with_schema = 0, with_checks = 0;
  for (std::size_t i = 0; i < scanned.records().size(); ++i) {
    const auto& was = scanned.records()[i];
    const auto& is = described->records()[i];
    INFO(was.path.string());
    CHECK(is.path == was.path);
    CHECK(is.name == was.name);
    CHECK(is.kind == was.kind);
    CHECK(is.version == was.version);
    CHECK(is.abi_major == was.abi_major);
    CHECK(is.abi_minor == was.abi_minor);
    CHECK(is.loaded == was.loaded);
    CHECK(is.refusal == was.refusal);
    CHECK(is.config_keys.own == was.config_keys.own);
    CHECK(is.config_keys.reads == was.config_keys.reads);
    CHECK(is.config_schema == was.config_schema);
    CHECK(is.validates_config == was.validates_config);
    CHECK(is.validates_policy == was.validates_policy);
    CHECK(is.entry == nullptr);
    with_schema += is.config_schema.empty() ? 0 : 1;
    with_checks += is.validates_config ? 1 : 0;
  }
  // The comparison covers a schema and a check, not only empty ones.
  CHECK(with_schema > 0);
  CHECK(with_checks > 0);
  CHECK_THAT(describe_log.text(),
             ContainsSubstring("found plugin sandbox-fixture (sandbox 0.0.1) at " +
                               (daemon_fixture_dir() / "sandbox-fixture.so").string() +
                               "; its code is mapped only if the configuration uses it"));
  CHECK_THAT(describe_log.text(), ContainsSubstring("a plugin named sandbox-gappy was already "
                                                    "loaded from"));
}

TEST_CASE("a described plugin's code is mapped on first use, from the file that was described") {
  TempDir dir;
  std::filesystem::copy_file(fixture_dir() / "fixture-good.so", dir.path() / "later.so");
  CapturedLog log;
  const auto described = PluginRegistry::describe({dir.path()}, log.logger(), errand_helper());
  REQUIRE(described.has_value());
  const auto& record = named(*described, "sandbox-gappy");
  CHECK(errand::plugins::mapped_code(record) == nullptr);
  const auto code = errand::plugins::plugin_code(record);
  REQUIRE(code.has_value());
  CHECK((*code)->create != nullptr);
  CHECK(errand::plugins::mapped_code(record) == *code);
  // Asked again, the same mapping.
  CHECK(*errand::plugins::plugin_code(record) == *code);
}

TEST_CASE("a plugin file replaced after it was described is refused when first used") {
  TempDir dir;
  const auto file = dir.path() / "swapped.so";
  std::filesystem::copy_file(fixture_dir() / "fixture-good.so", file);
  CapturedLog log;
  const auto described = PluginRegistry::describe({dir.path()}, log.logger(), errand_helper());
  REQUIRE(described.has_value());
  const auto& record = named(*described, "sandbox-gappy");
  std::filesystem::copy_file(daemon_fixture_dir() / "sandbox-fixture.so", file,
                             std::filesystem::copy_options::overwrite_existing);
  const auto code = errand::plugins::plugin_code(record);
  REQUIRE_FALSE(code.has_value());
  CHECK_THAT(code.error().message,
             ContainsSubstring(file.string() + " is no longer the plugin errand read at start "
                                               "(sandbox-gappy 0.1.0 then, sandbox-fixture 0.0.1 "
                                               "now"));
  CHECK(errand::plugins::mapped_code(record) == nullptr);
}

TEST_CASE("a refused record's code is never mapped") {
  CapturedLog log;
  const auto described = PluginRegistry::describe({fixture_dir()}, log.logger(), errand_helper());
  REQUIRE(described.has_value());
  for (const auto& record : described->records()) {
    if (record.loaded) continue;
    const auto code = errand::plugins::plugin_code(record);
    REQUIRE_FALSE(code.has_value());
    CHECK_THAT(code.error().message, ContainsSubstring("was not loaded: " + record.refusal));
  }
}

TEST_CASE("each plugin's configuration check runs in the helper, verdicts in order") {
  CapturedLog log;
  const auto described =
      PluginRegistry::describe({daemon_fixture_dir()}, log.logger(), errand_helper());
  REQUIRE(described.has_value());
  const auto& fixture = named(*described, "sandbox-fixture");
  REQUIRE(fixture.validates_config);
  const auto bad = boost::json::parse(R"({"sandbox": {"fixture": {"gaps": ["one", ""]}}})");
  const auto good = boost::json::parse(R"({"sandbox": {"fixture": {"gaps": ["one"]}}})");
  TempDir gone;
  PluginRecord vanished = fixture;
  vanished.path = gone.path() / "sandbox-fixture.so";
  const auto verdicts = errand::plugins::check_config_with(
      errand_helper(),
      {{&fixture, bad.as_object()}, {&vanished, good.as_object()}, {&fixture, good.as_object()}});
  REQUIRE(verdicts.has_value());
  REQUIRE(verdicts->size() == 3);
  REQUIRE((*verdicts)[0].problems.size() == 1);
  CHECK((*verdicts)[0].problems[0].path == "sandbox.fixture.gaps");
  CHECK((*verdicts)[0].problems[0].message == "a gap needs a name; remove the empty entry");
  CHECK((*verdicts)[0].refusal.empty());
  CHECK_THAT((*verdicts)[1].refusal, ContainsSubstring(vanished.path.string()));
  CHECK((*verdicts)[2].problems.empty());
  CHECK((*verdicts)[2].refusal.empty());
  // None of it was mapped here.
  CHECK(errand::plugins::mapped_code(fixture) == nullptr);
}

TEST_CASE("a helper that fails or answers nonsense is an error naming it") {
  CapturedLog log;
  const auto dirs = std::vector{daemon_fixture_dir()};
  const auto failing = PluginRegistry::describe(dirs, log.logger(), {.program = "/bin/false"});
  REQUIRE_FALSE(failing.has_value());
  CHECK_THAT(failing.error().message, ContainsSubstring("/bin/false plugins describe exited "
                                                        "with 1"));
  // echo answers with its arguments, which are not JSON.
  const auto nonsense = PluginRegistry::describe(dirs, log.logger(), {.program = "/bin/echo"});
  REQUIRE_FALSE(nonsense.has_value());
  CHECK_THAT(nonsense.error().message,
             ContainsSubstring("/bin/echo plugins describe answered with something that is not "
                               "JSON"));
  const auto missing =
      PluginRegistry::describe(dirs, log.logger(), {.program = "/nonexistent/errand"});
  REQUIRE_FALSE(missing.has_value());
  CHECK_THAT(missing.error().message, ContainsSubstring("/nonexistent/errand"));
}

TEST_CASE("the helper refuses a request it cannot read with exit 2 and says why") {
  errand::common::ProgramExchange exchange;
  exchange.program = errand_helper().program.string();
  exchange.args = {"plugins", "check-config"};
  exchange.input = R"({"checks": [{"path": 7}]})";
  const auto answer = errand::common::exchange_with_program(exchange);
  REQUIRE(answer.has_value());
  CHECK(answer->exit_code == 2);
  CHECK(answer->out.empty());
  CHECK_THAT(answer->err_tail, ContainsSubstring("errand plugins check-config: a check is not "
                                                 "{\"path\", \"name\", \"config\"}"));
  // An empty list of checks is a request it can read: no verdicts.
  const auto none = errand::plugins::check_config_with(errand_helper(), {});
  REQUIRE(none.has_value());
  CHECK(none->empty());
}
