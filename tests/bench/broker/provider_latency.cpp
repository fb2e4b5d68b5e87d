#include "tests/bench/broker/provider_latency.hpp"

#include "tests/bench/table/bench_table.hpp"

#include <fmt/format.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <chrono>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "tests/bench/broker/bench_clients.hpp"
#include "tests/fakes/provider/fake_provider.hpp"
#include "tests/unit/broker/support/broker_client.hpp"
#include "tests/unit/broker/support/broker_harness.hpp"

namespace errand::bench {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using steady = std::chrono::steady_clock;

constexpr int kWarmUpCalls = 20;
constexpr int kMeasuredCalls = 300;
const std::string kProviderKey = "sk-latency-REALKEY-0123456789abcdefghijklmnop";
// A short, non-streamed chat completion: the fake answers it with one small JSON body.
const std::string kRequestBody =
    R"({"model":"bench-model","stream":false,"messages":[{"role":"user","content":"hi"}]})";

// Microseconds each call took, after the warm-up calls.
std::vector<double> time_calls(const std::function<bool()>& one_call) {
  for (int i = 0; i < kWarmUpCalls; ++i)
    if (!one_call()) return {};
  std::vector<double> took;
  took.reserve(kMeasuredCalls);
  for (int i = 0; i < kMeasuredCalls; ++i) {
    const auto started = steady::now();
    if (!one_call()) return {};
    took.push_back(std::chrono::duration<double, std::micro>(steady::now() - started).count());
  }
  return took;
}

// The broker's median for the call with the provider pool as limits say.
double through_broker(const fakes::FakeProvider& provider, const std::filesystem::path& ca_file,
                      int io_threads, broker::ProviderPoolLimits limits) {
  auto config = broker::testing::base_config();
  config["sandbox"].as_object()["egress"].as_object()["allowInternal"] =
      boost::json::array{"127.0.0.1/32"};
  config["agent"].as_object()["providers"] = boost::json::object{
      {"fake",
       {{"credential", kProviderKey}, {"kind", "openai"}, {"baseUrl", provider.https_url()}}}};
  broker::BrokerOptions options;
  options.ca_file = ca_file;
  options.provider_pool = limits;
  broker::testing::BrokerHarness harness(std::move(config), std::move(options), io_threads);
  const auto session = harness.open("latency");
  // One connection to the broker, kept alive, as an agent's HTTP client keeps it.
  broker::testing::BrokerClient client(session.socket_path);
  const std::string request = fmt::format(
      "POST /provider/fake/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:3128\r\n"
      "Authorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{}",
      session.stand_ins.at("fake").value, kRequestBody.size(), kRequestBody);
  const auto took = time_calls([&] {
    client.send(request);
    const auto answer = client.read_response();
    if (answer.status == 200 && !answer.error) return true;
    fmt::print(stderr, "provider call through the broker answered {}: {}\n", answer.status,
               answer.body);
    return false;
  });
  return took.empty() ? -1 : median(took);
}

// The same call straight to the fake provider, on one kept-alive TLS connection.
double direct(const fakes::FakeProvider& provider) {
  asio::io_context io;
  asio::ssl::context tls(asio::ssl::context::tls_client);
  tls.add_certificate_authority(asio::buffer(provider.ca_pem()));
  tls.set_verify_mode(asio::ssl::verify_peer);
  asio::ssl::stream<asio::ip::tcp::socket> stream(io, tls);
  stream.next_layer().connect({asio::ip::make_address("127.0.0.1"), provider.https_port()});
  stream.next_layer().set_option(asio::ip::tcp::no_delay(true));
  stream.handshake(asio::ssl::stream_base::client);
  http::request<http::string_body> request(http::verb::post, "/v1/chat/completions", 11);
  request.set(http::field::host, fmt::format("127.0.0.1:{}", provider.https_port()));
  request.set(http::field::authorization, "Bearer " + kProviderKey);
  request.set(http::field::content_type, "application/json");
  request.body() = kRequestBody;
  request.prepare_payload();
  boost::beast::flat_buffer buffer;
  const auto took = time_calls([&] {
    boost::system::error_code ec;
    http::write(stream, request, ec);
    http::response<http::string_body> answer;
    if (!ec) http::read(stream, buffer, answer, ec);
    if (!ec && answer.result_int() == 200 && answer.keep_alive()) return true;
    fmt::print(stderr, "the direct provider call failed: {} {}\n", ec.message(),
               answer.result_int());
    return false;
  });
  return took.empty() ? -1 : median(took);
}

}  // namespace

bool print_provider_call_latency(int io_threads) {
  fakes::FakeProvider provider;
  broker::testing::TempDir work;
  const auto ca_file = work.path() / "fake-provider-ca.pem";
  std::ofstream(ca_file) << provider.ca_pem();
  broker::ProviderPoolLimits pooled;
  broker::ProviderPoolLimits unpooled;
  unpooled.enabled = false;
  const double direct_us = direct(provider);
  const double pooled_us = through_broker(provider, ca_file, io_threads, pooled);
  const double unpooled_us = through_broker(provider, ca_file, io_threads, unpooled);
  if (direct_us < 0 || pooled_us < 0 || unpooled_us < 0) return false;
  fmt::print(
      "\nA small provider call over https, fake provider (median of {} calls, us)\n"
      "  direct, kept-alive TLS       {:10.1f}\n"
      "  broker, pooled connections   {:10.1f}   +{:.1f} us over direct\n"
      "  broker, a connection a call  {:10.1f}   +{:.1f} us over direct\n"
      "  pooled / unpooled            {:10.2f}   (added latency: {:.2f})\n",
      kMeasuredCalls, direct_us, pooled_us, pooled_us - direct_us, unpooled_us,
      unpooled_us - direct_us, pooled_us / unpooled_us,
      (pooled_us - direct_us) / (unpooled_us - direct_us));
  // No aim was set for this one; pooling is worth its code only if it at least halves a call.
  print_table_row({.measure = "provider call over https, broker pooled vs a connection a call",
                   .unit = "us",
                   .errand = pooled_us,
                   .peer_name = "unpooled",
                   .peer = unpooled_us,
                   .better = Better::lower,
                   .aim = 0.5});
  return true;
}

}  // namespace errand::bench
