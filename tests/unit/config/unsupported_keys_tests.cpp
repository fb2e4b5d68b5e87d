#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <errand/sdk/config_values.hpp>

#include "core/config/schema_leaves.hpp"
#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using Catch::Matchers::ContainsSubstring;

namespace {

struct Written {
  std::string key;
  const char* value;  // JSON
};

}  // namespace

TEST_CASE("a key nothing reads is refused with the reason, whatever its value",
          "[config][unsupported]") {
  const auto written = GENERATE(Written{"sandbox.diskTmp", "false"},
                                // Even a value its own schema would refuse: the refusal is about
                                // the key.
                                Written{"sandbox.diskTmp", R"({"not": "a flag"})"});
  auto config = minimal_config();
  set(config, written.key, boost::json::parse(written.value));
  INFO(written.key << " = " << written.value);
  const auto problem = only_problem(config);
  CHECK(problem.path == written.key);
  CHECK_THAT(problem.message, ContainsSubstring("`" + written.key + "` is not supported yet: "));
  CHECK_THAT(problem.message, ContainsSubstring("remove the"));
}

TEST_CASE("a key nothing reads is not filled in with a default", "[config][unsupported]") {
  const auto loaded = load_core(minimal_config());
  REQUIRE(loaded.has_value());
  for (const auto& leaf : schema_leaves(core_schema())) {
    if (leaf.unsupported.empty()) continue;
    INFO(leaf.key);
    CHECK(errand::sdk::find_setting(loaded->effective, leaf.key) == nullptr);
  }
}
