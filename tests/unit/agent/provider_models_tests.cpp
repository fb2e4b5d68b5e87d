// `!models refresh` asks the providers themselves: the real request against the fake provider,
// over plain http to loopback and over TLS checked against the fake's own CA.

#include "core/agent/provider_models.hpp"
#include "tests/fakes/provider/fake_provider.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using errand::agent::fetch_provider_models;
using errand::agent::models_requests_from_config;
using errand::agent::models_target;
using errand::agent::ModelsRequest;

namespace {

errand::sdk::Result<std::vector<std::string>> fetch(ModelsRequest request) {
  boost::asio::io_context io;
  auto answer = boost::asio::co_spawn(io, fetch_provider_models(io.get_executor(), request),
                                      boost::asio::use_future);
  io.run();
  return answer.get();
}

const std::vector<std::string> kFakeModels{"fake-model", "fake-model-small"};

ModelsRequest asking(std::string provider, std::string base_url, std::string kind,
                     std::string credential) {
  ModelsRequest request;
  request.provider = std::move(provider);
  request.base_url = std::move(base_url);
  request.kind = std::move(kind);
  request.credential = std::move(credential);
  return request;
}

}  // namespace

TEST_CASE("the list is asked for under /v1 whether or not the base URL ends in it") {
  CHECK(models_target("") == "/v1/models");
  CHECK(models_target("/") == "/v1/models");
  CHECK(models_target("/v1") == "/v1/models");
  CHECK(models_target("/openai/v1/") == "/openai/v1/models");
  CHECK(models_target("/proxy") == "/proxy/v1/models");
}

TEST_CASE("an Anthropic provider is asked with x-api-key and anthropic-version over http") {
  errand::fakes::FakeProvider provider;
  const auto models =
      fetch(asking("anthropic", provider.http_url(), "anthropic", "real-key-123456"));
  REQUIRE(models.has_value());
  CHECK(*models == kFakeModels);
  const auto seen = provider.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "GET");
  CHECK(seen[0].target == "/v1/models");
  CHECK(seen[0].header("x-api-key") == "real-key-123456");
  CHECK(seen[0].header("anthropic-version") == "2023-06-01");
  CHECK(seen[0].header("authorization").empty());
}

TEST_CASE("an OpenAI provider is asked with a bearer token over TLS checked against its CA") {
  errand::fakes::FakeProvider provider;
  auto request = asking("openai", provider.https_url() + "/v1", "openai", "sk-real-abcdef");
  request.extra_ca_pem = provider.ca_pem();
  const auto models = fetch(request);
  REQUIRE(models.has_value());
  CHECK(*models == kFakeModels);
  const auto seen = provider.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].tls);
  CHECK(seen[0].target == "/v1/models");
  CHECK(seen[0].header("authorization") == "Bearer sk-real-abcdef");
  CHECK(seen[0].header("x-api-key").empty());
}

TEST_CASE("a certificate the system does not trust, a dead port and plain http elsewhere fail") {
  errand::fakes::FakeProvider provider;
  // No extra CA: the fake's certificate chains to nothing the system trusts.
  const auto untrusted =
      fetch(asking("anthropic", provider.https_url(), "anthropic", "real-key-123456"));
  REQUIRE_FALSE(untrusted.has_value());
  CHECK_THAT(untrusted.error().message, StartsWith("could not ask anthropic for its models: "));
  CHECK(provider.requests().empty());

  auto dead = asking("local", provider.http_url(), "openai", "sk-real-abcdef");
  dead.base_url = "http://127.0.0.1:1";
  const auto refused = fetch(dead);
  REQUIRE_FALSE(refused.has_value());
  CHECK_THAT(refused.error().message, ContainsSubstring("refused"));

  const auto plain = fetch(asking("far", "http://198.51.100.7/v1", "openai", "sk-real-abcdef"));
  REQUIRE_FALSE(plain.has_value());
  CHECK_THAT(plain.error().message, ContainsSubstring("the key would travel unencrypted"));

  const auto unknown = fetch(asking("odd", provider.http_url(), "", "sk-real-abcdef"));
  REQUIRE_FALSE(unknown.has_value());
  CHECK_THAT(unknown.error().message, ContainsSubstring("how to present the key"));
}

TEST_CASE("base URLs with no path, a slash, a path or a trailing slash ask below /v1") {
  errand::fakes::FakeProvider provider;
  for (const auto* suffix : {"", "/", "/v1", "/v1/"}) {
    const auto base = provider.http_url() + suffix;
    INFO(base);
    const auto models = fetch(asking("anthropic", base, "anthropic", "real-key-123456"));
    REQUIRE(models.has_value());
    CHECK(provider.requests().back().target == "/v1/models");
  }
}

TEST_CASE("base URLs that cannot be asked are refused, naming the URL and what is wrong") {
  errand::fakes::FakeProvider provider;
  const auto http = provider.http_url();
  const auto port = http.substr(http.rfind(':') + 1);
  const std::vector<std::pair<std::string, std::string>> shapes{
      {"http://user:pw@127.0.0.1:" + port, "user information"},
      {http + "/v1?beta=true", "query"},
      {http + "/v1#models", "fragment"},
      {"http://127.0.0.1:99999/v1", "1 to 65535"},
      {"http://127.0.0.1:" + port + "-b/v1", "malformed host or port"},
      {"ftp://127.0.0.1:" + port, "neither https:// nor http://"},
  };
  for (const auto& [base, words] : shapes) {
    INFO(base);
    const auto refused = fetch(asking("anthropic", base, "anthropic", "real-key-123456"));
    REQUIRE_FALSE(refused.has_value());
    CHECK_THAT(refused.error().message, ContainsSubstring(words));
    CHECK_THAT(refused.error().message, !ContainsSubstring("pw@"));
    if (words == "user information")
      CHECK_THAT(refused.error().message, ContainsSubstring("\"http://127.0.0.1:" + port + "\""));
    else if (words != "neither https:// nor http://")
      CHECK_THAT(refused.error().message, ContainsSubstring("\"" + base + "\""));
  }
  CHECK(provider.requests().empty());
}

TEST_CASE("only providers with a base URL and a credential are asked") {
  const auto config = boost::json::parse(R"({"agent": {"providers": {
      "anthropic": {"baseUrl": "https://api.anthropic.com", "kind": "anthropic",
                    "credential": "sk-ant-xxxxxxxx"},
      "nokey": {"baseUrl": "https://example.com", "kind": "openai"},
      "local": {"baseUrl": "http://127.0.0.1:8080/v1", "placement": "bearer",
                "credential": "local-key-123"}}}})")
                          .as_object();
  const auto requests = models_requests_from_config(config);
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].provider == "anthropic");
  CHECK(requests[0].kind == "anthropic");
  CHECK(requests[1].provider == "local");
  CHECK(requests[1].placement == "bearer");
  CHECK(requests[1].credential == "local-key-123");
}
