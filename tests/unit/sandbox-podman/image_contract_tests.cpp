#include "plugins/sandbox-podman/impl/image_contract.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace errand::podman;

TEST_CASE("the contract image/build writes reads as version 1 with its providers") {
  auto none = parse_image_contract(R"({"version":1,"providers":[]})");
  REQUIRE(none.has_value());
  CHECK(none->version == 1);
  CHECK(none->providers.empty());
  auto two = parse_image_contract(R"({"version":1,"providers":["anthropic","openai"]})");
  REQUIRE(two.has_value());
  CHECK(two->providers == std::vector<std::string>{"anthropic", "openai"});
}

TEST_CASE("a contract label errand cannot trust is refused saying what is wrong") {
  const struct {
    const char* label;
    const char* says;
  } cases[] = {
      {"test", "not a JSON object"},
      {R"('{"version":1,"providers":[]}')", "not a JSON object"},
      {R"({"providers":[]})", "no integer \"version\""},
      {R"({"version":"1","providers":[]})", "no integer \"version\""},
      {R"({"version":2,"providers":[]})", "version 2, and this errand runs version 1"},
      {R"({"version":1})", "no \"providers\" list"},
      {R"({"version":1,"providers":[""]})", "not a name"},
      {R"({"version":1,"providers":[7]})", "not a name"},
  };
  for (const auto& c : cases) {
    INFO(c.label);
    auto contract = parse_image_contract(c.label);
    REQUIRE_FALSE(contract.has_value());
    CHECK(contract.error().message.find(c.says) != std::string::npos);
  }
}
