// Broker::refresh_usage: one small call under no session, answered with the provider's limits.

#include <catch2/catch_test_macros.hpp>

#include "tests/support/result_printing.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fstream>

#include "tests/fakes/provider/fake_provider.hpp"
#include "tests/unit/broker/support/broker_harness.hpp"

using namespace errand::broker;
using namespace errand::broker::testing;
using errand::fakes::FakeProvider;
using errand::fakes::ScriptedAnswer;
using ReceiptOutcome = errand::sdk::ProviderReceipt::Outcome;
namespace json = boost::json;

namespace {

const std::string kUsageKey = "sk-live-REALKEY-eeeeeeeeeeeeeeeeeeeeeeee";

struct RefreshFixture {
  TempDir dir;
  FakeProvider provider{FakeProvider::Options{
      .expected_key = kUsageKey, .event_delay = std::chrono::milliseconds(2), .on_request = {}}};

  RefreshFixture() { std::ofstream(dir.path() / "ca.pem") << provider.ca_pem(); }

  json::object config() {
    auto c = base_config();
    c["sandbox"].as_object()["egress"].as_object()["allowInternal"] = json::array{"127.0.0.1/32"};
    auto& agent = c["agent"].as_object();
    agent["model"] = "big-model";
    agent["providers"] = json::object{
        {"anthropic",
         {{"credential", kUsageKey}, {"kind", "anthropic"}, {"baseUrl", provider.https_url()}}},
        {"openai",
         {{"credential", kUsageKey},
          {"kind", "openai"},
          {"baseUrl", provider.https_url() + "/v1"}}},
        {"odd", {{"credential", kUsageKey}, {"baseUrl", provider.https_url()}}}};
    return c;
  }

  // The egress the core hands the broker with the call: the provider is on loopback, which only
  // an internal range lets the broker reach.
  static errand::sdk::BrokerSessionSpec loopback() {
    errand::sdk::BrokerSessionSpec egress;
    egress.allow_internal = {"127.0.0.1/32"};
    return egress;
  }

  BrokerOptions options() {
    BrokerOptions o;
    o.ca_file = dir.path() / "ca.pem";
    return o;
  }
};

}  // namespace

TEST_CASE_METHOD(RefreshFixture,
                 "refresh_usage asks with one token and returns the limits the answer carried",
                 "[usage][integration]") {
  BrokerHarness harness(config(), options());
  const auto usage = harness.refresh_usage("anthropic", loopback());
  REQUIRE(usage);
  CHECK(usage->provider == "anthropic");
  REQUIRE(usage->windows.size() == 2);
  CHECK(usage->windows[0].name == "requests");
  CHECK(usage->windows[0].limit == std::optional<std::uint64_t>(1000));
  CHECK(usage->windows[1].name == "tokens");
  CHECK(usage->windows[1].limit == std::optional<std::uint64_t>(80000));
  const auto reported = harness.events().usage();
  REQUIRE(reported.size() == 1);
  CHECK(reported[0].windows.size() == 2);

  const auto seen = provider.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].target == "/v1/messages");
  CHECK(seen[0].header("x-api-key") == kUsageKey);
  const auto body = json::parse(seen[0].body).as_object();
  CHECK(body.at("model").as_string() == "big-model");
  CHECK(body.at("max_tokens").to_number<int>() == 1);
  CHECK(json::serialize(body.at("messages")) == R"([{"role":"user","content":"ok"}])");
  CHECK_FALSE(body.contains("stream"));

  // A receipt under no session: the daemon's own call.
  const auto rows = harness.receipts().newest("", 10);
  REQUIRE(rows);
  REQUIRE(rows->size() == 1);
  CHECK((*rows)[0].path == "/v1/messages");
  CHECK((*rows)[0].status == 200);
  CHECK((*rows)[0].outcome == ReceiptOutcome::completed);
}

TEST_CASE_METHOD(RefreshFixture, "an openai provider is asked on chat completions",
                 "[usage][integration]") {
  BrokerHarness harness(config(), options());
  const auto usage = harness.refresh_usage("openai", loopback());
  REQUIRE(usage);
  REQUIRE(usage->windows.size() == 2);
  CHECK(usage->windows[0].limit == std::optional<std::uint64_t>(500));
  const auto seen = provider.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].target == "/v1/chat/completions");
  CHECK(seen[0].header("Authorization") == "Bearer " + kUsageKey);
  const auto body = json::parse(seen[0].body).as_object();
  CHECK(body.at("max_tokens").to_number<int>() == 1);
}

TEST_CASE_METHOD(RefreshFixture, "refresh_usage says why it could not ask",
                 "[usage][integration]") {
  BrokerHarness harness(config(), options());
  const auto unknown = harness.refresh_usage("nosuch");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message.find("not one the broker holds a key for") != std::string::npos);
  const auto odd = harness.refresh_usage("odd");
  REQUIRE_FALSE(odd);
  CHECK(odd.error().message.find("neither a kind nor a placement") != std::string::npos);
  // Without an internal range from the core, a loopback provider is refused.
  const auto unranged = harness.refresh_usage("anthropic");
  REQUIRE_FALSE(unranged);
  CHECK(unranged.error().message.find("not a public host") != std::string::npos);

  provider.push(ScriptedAnswer::failure(500, "the fake is down"));
  const auto failed = harness.refresh_usage("anthropic", loopback());
  REQUIRE_FALSE(failed);
  CHECK(failed.error().message == "provider anthropic answered 500: the fake is down");
  const auto rows = harness.receipts().newest("", 10);
  REQUIRE(rows);
  CHECK(rows->size() == 2);  // the refused dial and the 500
}
