#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("sandbox.env may not set PATH", "[config][sandbox]") {
  auto config = minimal_config();
  set(config, "sandbox.env", boost::json::object{{"PATH", "/opt/bin:/usr/bin"}});
  const auto problem = only_problem(config);
  CHECK(problem.path == "sandbox.env.PATH");
  CHECK_THAT(problem.message, ContainsSubstring("sandbox.pathExtra"));
}

TEST_CASE("sandbox.env may not set HOME", "[config][sandbox]") {
  auto config = minimal_config();
  set(config, "sandbox.env", boost::json::object{{"HOME", "/root"}});
  const auto problem = only_problem(config);
  CHECK(problem.path == "sandbox.env.HOME");
  CHECK_THAT(problem.message, ContainsSubstring("is refused"));
}

TEST_CASE("sandbox.env may not set a provider's credential variable", "[config][sandbox]") {
  auto config = minimal_config();
  set(config, "sandbox.env", boost::json::object{{"ANTHROPIC_API_KEY", "sk-other"}});
  const auto problem = only_problem(config);
  CHECK(problem.path == "sandbox.env.ANTHROPIC_API_KEY");
  CHECK_THAT(problem.message, ContainsSubstring("provider \"anthropic\""));
}

TEST_CASE("sandbox.env names must be variable names", "[config][sandbox]") {
  auto config = minimal_config();
  set(config, "sandbox.env", boost::json::object{{"CARGO-HOME", "/cache"}});
  const auto problem = only_problem(config);
  CHECK(problem.path == "sandbox.env.CARGO-HOME");
  CHECK_THAT(problem.message, ContainsSubstring("the name of `sandbox.env.CARGO-HOME`"));
}

TEST_CASE("an empty policyExtra list is accepted as no grant", "[config][sandbox]") {
  const auto list = GENERATE(as<std::string>{}, "read", "write", "execute");
  auto config = minimal_config();
  set(config, "sandbox.policyExtra." + list, boost::json::array{});
  const auto loaded = load_core(config);
  INFO((loaded ? std::string() : format_problems(loaded.error())));
  REQUIRE(loaded.has_value());
  CHECK(loaded->effective.at("sandbox").at("policyExtra").at(list) == boost::json::array{});
}

TEST_CASE("an empty pathExtra is refused", "[config][sandbox]") {
  auto config = minimal_config();
  set(config, "sandbox.pathExtra", boost::json::array{});
  const auto problem = only_problem(config);
  CHECK(problem.path == "sandbox.pathExtra");
  CHECK_THAT(problem.message, ContainsSubstring("Leave the key out"));
}

TEST_CASE("a relative policyExtra path is refused", "[config][sandbox]") {
  auto config = minimal_config();
  set(config, "sandbox.policyExtra.read", boost::json::array{"/opt/tools", "cache"});
  const auto problem = only_problem(config);
  CHECK(problem.path == "sandbox.policyExtra.read[1]");
  CHECK_THAT(problem.message, ContainsSubstring("\"cache\" is relative"));
}

TEST_CASE("an empty egressPorts is refused", "[config][sandbox]") {
  auto config = minimal_config();
  set(config, "sandbox.egressPorts", boost::json::array{});
  const auto problem = only_problem(config);
  CHECK(problem.path == "sandbox.egressPorts");
  CHECK_THAT(problem.message, ContainsSubstring("must not be an empty list"));
}

TEST_CASE("egressPorts outside 1-65535 are refused", "[config][sandbox]") {
  auto config = minimal_config();
  set(config, "sandbox.egressPorts", boost::json::array{0, 443, 65536});
  const auto problems = problems_of(config);
  INFO(format_problems(problems));
  REQUIRE(problems.size() == 2);
  CHECK_THAT(problem_at(problems, "sandbox.egressPorts[0]").message,
             ContainsSubstring("at least 1, not 0"));
  CHECK_THAT(problem_at(problems, "sandbox.egressPorts[2]").message,
             ContainsSubstring("at most 65535, not 65536"));
}

TEST_CASE("listenPorts holds only ports, each once", "[config][sandbox]") {
  auto config = minimal_config();
  set(config, "sandbox.listenPorts", boost::json::array{8080, 0, 8080});
  const auto problems = problems_of(config);
  INFO(format_problems(problems));
  REQUIRE(problems.size() == 2);
  CHECK_THAT(problem_at(problems, "sandbox.listenPorts[1]").message,
             ContainsSubstring("at least 1, not 0"));
  CHECK_THAT(problem_at(problems, "sandbox.listenPorts").message, ContainsSubstring("8080"));
}

TEST_CASE("egress.allow entries must be hosts, *.suffix or *", "[config][sandbox]") {
  const auto [entry, gist] = GENERATE(table<std::string, std::string>({
      {"https://github.com", "without a scheme"},
      {"github.com/org", "without a path"},
      {"github.com:443", "without a port"},
      {"git hub.com", "not a host name"},
      {"api.*.com", "stands alone or as the whole first label"},
      {"-bad.example.com", "not a host name"},
  }));
  auto config = minimal_config();
  set(config, "sandbox.egress.allow", boost::json::array{"github.com", entry});
  const auto problem = only_problem(config);
  CHECK(problem.path == "sandbox.egress.allow[1]");
  CHECK_THAT(problem.message, ContainsSubstring(gist));
}

TEST_CASE("egress.allow accepts names, wildcards, * and address literals", "[config][sandbox]") {
  auto config = minimal_config();
  set(config, "sandbox.egress.allow",
      boost::json::array{"*", "github.com", "*.github.com", "10.0.0.5", "::1", "localhost"});
  const auto loaded = load_core(config);
  INFO((loaded ? std::string() : format_problems(loaded.error())));
  CHECK(loaded.has_value());
}

TEST_CASE("a size that does not parse is refused", "[config][sandbox]") {
  const auto [value, gist] = GENERATE(table<std::string, std::string>({
      {"lots", "is not a size"},
      {"4 gallons", "unknown unit"},
      {"0", "more than 0 bytes"},
  }));
  auto config = minimal_config();
  set(config, "sandbox.memory", boost::json::string(value));
  const auto problem = only_problem(config);
  CHECK(problem.path == "sandbox.memory");
  CHECK_THAT(problem.message, ContainsSubstring(gist));
  CHECK_THAT(problem.message, ContainsSubstring("\"512m\""));
}

TEST_CASE("memory and cpus take a share of the host, and refuse one that is not",
          "[config][sandbox][key:sandbox.memory][key:sandbox.cpus]") {
  auto config = minimal_config();
  set(config, "sandbox.memory", "50%");
  set(config, "sandbox.cpus", "12.5%");
  const auto loaded = load_core(config);
  INFO((loaded ? std::string() : format_problems(loaded.error())));
  CHECK(loaded.has_value());

  const auto [key, value, gist] = GENERATE(table<std::string, std::string, std::string>({
      {"sandbox.memory", "150%",
       "is \"150%\", which is not a share of the host; a share is "
       "more than 0% and at most 100%"},
      {"sandbox.memory", "0%", "more than 0% and at most 100%"},
      {"sandbox.cpus", "eighty%", "write a number from 0 to 100 followed by %"},
      {"sandbox.cpus", "two",
       "must be a number of CPUs or a share of the host such as "
       "\"80%\", not \"two\""},
  }));
  auto bad = minimal_config();
  set(bad, key, boost::json::string(value));
  const auto problem = only_problem(bad);
  CHECK(problem.path == key);
  CHECK_THAT(problem.message, ContainsSubstring(gist));
  CHECK_THAT(problem.message, ContainsSubstring("such as \"80%\""));
}

TEST_CASE("a size may be a byte count or a suffixed string", "[config][sandbox]") {
  auto config = minimal_config();
  set(config, "sandbox.memory", 1073741824);
  set(config, "sandbox.tmpSize", "1.5g");
  set(config, "sandbox.fileMax", "512M");
  CHECK(load_core(config).has_value());
}

TEST_CASE("a size of the wrong type is refused", "[config][sandbox]") {
  auto config = minimal_config();
  set(config, "sandbox.disk", true);
  const auto problem = only_problem(config);
  CHECK(problem.path == "sandbox.disk");
  CHECK_THAT(problem.message, ContainsSubstring("must be a string or a whole number, not true"));
}

TEST_CASE("an unknown network mode is refused", "[config][sandbox]") {
  auto config = minimal_config();
  set(config, "sandbox.network", "restrcted");
  const auto problem = only_problem(config);
  CHECK(problem.path == "sandbox.network");
  CHECK_THAT(problem.message, ContainsSubstring("did you mean \"restricted\"?"));
}

TEST_CASE("cpus must be more than zero", "[config][sandbox]") {
  auto config = minimal_config();
  set(config, "sandbox.cpus", 0);
  const auto problem = only_problem(config);
  CHECK(problem.path == "sandbox.cpus");
  CHECK_THAT(problem.message, ContainsSubstring("must be more than 0"));
}

TEST_CASE("a size written as a whole number with a fraction part is a byte count",
          "[config][sandbox]") {
  auto config = minimal_config();
  set(config, "sandbox.memory", 1073741824.0);
  const auto loaded = load_core(config);
  INFO((loaded ? std::string() : format_problems(loaded.error())));
  REQUIRE(loaded.has_value());
  CHECK(loaded->effective.at("sandbox").at("memory") == 1073741824);
  CHECK(loaded->effective.at("sandbox").at("memory").is_int64());
}

TEST_CASE("sandbox.egress.allowInternal entries must be address ranges when the file loads",
          "[config][sandbox][key:sandbox.egress.allowInternal]") {
  auto config = minimal_config();
  set(config, "sandbox.egress.allowInternal", boost::json::array{"127.0.0.1/32", "10.1.2.5/24"});
  const auto problem = only_problem(config);
  CHECK(problem.path == "sandbox.egress.allowInternal");
  CHECK_THAT(problem.message, ContainsSubstring("10.1.2.5 has bits set below its /24 prefix"));
}
