// broker.caFile: the certificate authorities the broker trusts for https provider base URLs,
// read from the configuration, in place of the system store.

#include <catch2/catch_test_macros.hpp>

#include <fmt/format.h>

#include "tests/fakes/upstream/fake_upstream.hpp"
#include "tests/fakes/upstream/test_ca.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/unit/broker/support/broker_client.hpp"
#include "tests/unit/broker/support/broker_harness.hpp"

using namespace errand::broker;
using namespace errand::broker::testing;
using errand::fakes::FakeUpstream;
using errand::fakes::UpstreamReply;
using errand::fakes::UpstreamRequest;

namespace {

const std::string kProviderKey = "sk-ant-api03-CAFILE-dddddddddddddddddddddddd";

UpstreamReply answer_ok(const UpstreamRequest&) {
  UpstreamReply reply;
  reply.headers = {{"Content-Type", "application/json"}};
  reply.pieces = {R"({"ok":true})"};
  return reply;
}

// One anthropic provider at the https fake, which serves a certificate from a CA made here and
// so unknown to the system store.
boost::json::object config_with(const FakeUpstream& upstream,
                                const std::optional<std::filesystem::path>& ca_file) {
  auto config = base_config();
  // The fake listens on loopback, which only a listed range lets the broker dial.
  config["sandbox"].as_object()["egress"].as_object()["allowInternal"] =
      boost::json::array{"127.0.0.0/8"};
  config["agent"].as_object()["providers"] =
      boost::json::object{{"anthropic", boost::json::object{{"credential", kProviderKey},
                                                            {"kind", "anthropic"},
                                                            {"baseUrl", upstream.base_url()}}}};
  if (ca_file) config["broker"] = boost::json::object{{"caFile", ca_file->string()}};
  return config;
}

ClientResponse call_provider(BrokerHarness& harness, const std::string& session_id) {
  const auto session = harness.open(session_id);
  BrokerClient client(session.socket_path);
  const std::string body = R"({"model":"m"})";
  client.send(
      fmt::format("POST /provider/anthropic/v1/messages HTTP/1.1\r\nHost: 127.0.0.1:3128\r\n"
                  "x-api-key: {}\r\nContent-Length: {}\r\n\r\n{}",
                  session.stand_ins.at("anthropic").value, body.size(), body));
  return client.read_response();
}

}  // namespace

TEST_CASE("broker.caFile decides whether an https provider's certificate is trusted",
          "[provider][integration]"
          "[key:broker.caFile]") {
  TempDir ca_dir;
  const auto ca = errand::fakes::make_test_ca(ca_dir.path());
  FakeUpstream upstream{answer_ok, FakeUpstream::Tls{ca.server_cert, ca.server_key}};
  REQUIRE(upstream.base_url().starts_with("https://"));

  SECTION("naming the provider's CA, the call is relayed over verified TLS") {
    BrokerHarness harness(config_with(upstream, ca.ca_cert));
    const auto reply = call_provider(harness, "s-cafile");
    CHECK(reply.status == 200);
    CHECK(reply.body == R"({"ok":true})");
    const auto seen = upstream.requests();
    REQUIRE(seen.size() == 1);
    CHECK(seen[0].target == "/v1/messages");
    CHECK(seen[0].header("x-api-key") == kProviderKey);
  }

  SECTION("left out, the system store does not know the CA and the call is refused") {
    BrokerHarness harness(config_with(upstream, std::nullopt));
    const auto reply = call_provider(harness, "s-system-store");
    CHECK(reply.status == 502);
    CHECK(reply.body.find("TLS with 127.0.0.1:" + std::to_string(upstream.port()) + " failed") !=
          std::string::npos);
    CHECK(reply.body.find("broker.caFile") != std::string::npos);
    // Nothing reached the provider, the key least of all.
    CHECK(upstream.requests().empty());
  }
}
