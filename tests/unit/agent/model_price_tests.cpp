// Pricing a call from the model lists: configured model objects first, then kage's catalog.

#include "core/agent/model_price.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

using namespace errand::agent;

TEST_CASE("a configured model object prices a call per million tokens each way",
          "[price][key:agent.providers.<name>.models]") {
  const auto config = boost::json::parse(R"({"agent": {"providers": {"anthropic": {"models": [
      "plain-id",
      {"id": "fake-flash", "inputCost": 0.25, "outputCost": 1.25},
      {"id": "half-priced", "inputCost": 3}
  ]}}}})")
                          .as_object();
  const auto cost = priced_call(config, nullptr, "anthropic", "fake-flash", 1'000'000, 200'000);
  REQUIRE(cost);
  CHECK(*cost == Catch::Approx(0.25 + 0.25));
  // A model priced one way only, or not at all, or of another provider, has no price.
  CHECK(!priced_call(config, nullptr, "anthropic", "half-priced", 10, 10));
  CHECK(!priced_call(config, nullptr, "anthropic", "plain-id", 10, 10));
  CHECK(!priced_call(config, nullptr, "other", "fake-flash", 10, 10));
}

TEST_CASE("kage's catalog prices what the configuration does not", "[price]") {
  const auto catalog = parse_kage_models_list(boost::json::parse(R"({"providers": [
      {"id": "anthropic", "name": "Anthropic", "models": [
          {"id": "fake-flash", "name": "Flash", "inputCost": 1, "outputCost": 5},
          {"id": "free", "name": "Free", "inputCost": -1, "outputCost": 0}]}]})"));
  REQUIRE(catalog.has_value());
  const auto config = boost::json::parse(R"({"agent": {}})").as_object();
  const auto cost = priced_call(config, &*catalog, "anthropic", "fake-flash", 2'000'000, 1'000'000);
  REQUIRE(cost);
  CHECK(*cost == Catch::Approx(7.0));
  // A negative price is no price.
  CHECK(!priced_call(config, &*catalog, "anthropic", "free", 1, 1));
}
