#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <stdexcept>

#include "core/config/schema.hpp"
#include "core/config/schema_builders.hpp"
#include "core/config/schema_leaves.hpp"
#include "tests/tools/key_coverage.hpp"

using namespace errand::config;
using Catch::Matchers::ContainsSubstring;
using errand::key_coverage::coverage_problems;
using errand::key_coverage::key_tags_in_listing;
namespace json = boost::json;

namespace {

// A schema with a plain key, a map of objects, a map of values, and an unsupported section.
json::object small_schema() {
  return json::parse(R"({"type": "object", "properties": {
      "stateDir": {"type": "string"},
      "providers": {"type": "object", "additionalProperties": {"type": "object",
        "properties": {"credential": {"type": "string"}, "models": {"type": "array"}},
        "additionalProperties": true}},
      "env": {"type": "object", "additionalProperties": {"type": "string"}},
      "web": {"type": "object", "x-errand-unsupported": "no web interface yet",
        "properties": {"port": {"type": "integer"}}},
      "broker": {"type": "object", "properties": {}}}})")
      .as_object();
}

std::vector<std::string> keys_of(const std::vector<SchemaLeaf>& leaves) {
  std::vector<std::string> keys;
  for (const auto& leaf : leaves) keys.push_back(leaf.key);
  return keys;
}

}  // namespace

TEST_CASE("schema leaves write a chosen name as <name> and inherit a section's mark",
          "[config][key-coverage]") {
  const auto leaves = schema_leaves(small_schema());
  CHECK(keys_of(leaves) == std::vector<std::string>{"stateDir", "providers.<name>.credential",
                                                    "providers.<name>.models", "env.<name>",
                                                    "web.port"});
  REQUIRE(leaves.size() == 5);
  CHECK(leaves[0].unsupported.empty());
  CHECK(leaves[4].unsupported == "no web interface yet");
}

TEST_CASE("a key no test names and the schema does not refuse fails the check",
          "[config][key-coverage]") {
  const auto leaves = schema_leaves(small_schema());
  const std::map<std::string, std::set<std::string>> tagged{
      {"stateDir", {"config_tests"}},
      {"providers.<name>.credential", {"broker_tests"}},
      {"env.<name>", {"bailey_live_tests"}}};
  const auto problems = coverage_problems(leaves, tagged);
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0], ContainsSubstring("`providers.<name>.models` has no behaviour test"));
  CHECK_THAT(problems[0], ContainsSubstring("add the tag [key:providers.<name>.models]"));
  CHECK_THAT(problems[0], ContainsSubstring("mark the key unsupported"));
}

TEST_CASE("every key tagged or refused passes the check", "[config][key-coverage]") {
  const std::map<std::string, std::set<std::string>> tagged{{"stateDir", {"a"}},
                                                            {"providers.<name>.credential", {"a"}},
                                                            {"providers.<name>.models", {"b"}},
                                                            {"env.<name>", {"b"}}};
  CHECK(coverage_problems(schema_leaves(small_schema()), tagged).empty());
}

TEST_CASE("a tag naming no key, or claiming an unsupported one, fails the check",
          "[config][key-coverage]") {
  const std::map<std::string, std::set<std::string>> tagged{
      {"stateDir", {"a"}},
      {"providers.<name>.credential", {"a"}},
      {"providers.<name>.models", {"a"}},
      {"env.<name>", {"a"}},
      {"web.port", {"web_tests"}},
      {"providers.anthropic.credential", {"broker_tests"}}};
  const auto problems = coverage_problems(schema_leaves(small_schema()), tagged);
  REQUIRE(problems.size() == 2);
  CHECK_THAT(problems[0], ContainsSubstring("`web.port` is marked unsupported"));
  CHECK_THAT(problems[0], ContainsSubstring("web_tests"));
  CHECK_THAT(problems[1], ContainsSubstring(
                              "[key:providers.anthropic.credential] in broker_tests names no key"));
}

TEST_CASE("adding a key nothing reads to the core schema fails the check",
          "[config][key-coverage]") {
  auto schema = core_schema();
  std::map<std::string, std::set<std::string>> tagged;
  for (const auto& leaf : schema_leaves(schema))
    if (leaf.unsupported.empty()) tagged[leaf.key].insert("all");
  REQUIRE(coverage_problems(schema_leaves(schema), tagged).empty());

  schema["properties"].as_object()["output"].as_object()["properties"].as_object()["emoji"] =
      schema_nodes::flag("Decorate replies.");
  const auto problems = coverage_problems(schema_leaves(schema), tagged);
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0], ContainsSubstring("`output.emoji` has no behaviour test"));
}

TEST_CASE("key tags are read from a Catch2 JSON tag listing", "[config][key-coverage]") {
  const auto keys = key_tags_in_listing(R"({"version": 1, "listings": {"tags": [
      {"aliases": ["[config]"], "count": 3},
      {"aliases": ["[key:sandbox.egress.mode]"], "count": 2},
      {"aliases": ["[key:agent.providers.<name>.credential]"], "count": 1}]}})");
  CHECK(keys == std::set<std::string>{"sandbox.egress.mode", "agent.providers.<name>.credential"});
  CHECK_THROWS_AS(key_tags_in_listing("All available tags:\n  1  [config]\n"), std::runtime_error);
}
