// bench_broker: what the broker costs a session. Prints, for one run on this machine:
//   CONNECT tunnel throughput: direct loopback TCP, through the broker, through the sandbox's
//   relay and the broker (the whole way an agent's bytes take), through tinyproxy;
//   added latency: one-byte round trips over an open tunnel, and the time to open one;
//   provider-route streaming with the key scrubbed, plain http and TLS upstream;
//   the streaming scrubber alone, per core.
// Medians of several runs, and the ratios the broker is judged by.

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "plugins/broker/provider/key_scrubber.hpp"
#include "tests/bench/broker/bench_clients.hpp"
#include "tests/bench/broker/provider_latency.hpp"
#include "tests/bench/broker/relay_peer.hpp"
#include "tests/bench/broker/tinyproxy_peer.hpp"
#include "tests/bench/table/bench_table.hpp"
#include "tests/fakes/upstream/fake_upstream.hpp"
#include "tests/fakes/upstream/raw_tcp_server.hpp"
#include "tests/fakes/upstream/test_ca.hpp"
#include "tests/unit/broker/support/broker_harness.hpp"

using namespace errand;
using bench::median;

namespace {

constexpr std::uint64_t kTunnelBytes = 512ull << 20;
constexpr int kTunnelRuns = 5;
constexpr int kPingRounds = 2000;
constexpr int kSetupRounds = 200;
// Under the broker's 64 MiB answer limit, which would otherwise cut the stream.
constexpr std::uint64_t kStreamBytes = 60ull << 20;
constexpr int kStreamRuns = 5;
const std::string kKey = "sk-bench-REALKEY-0123456789abcdefghijklmnopqrstuvwxyz";

double mib_per_s(std::uint64_t bytes, double seconds) {
  return bytes / seconds / (1 << 20);
}

template <class Open>
double tunnel_throughput(Open open, fakes::RawTcpServer& sink) {
  sink.set_sink_expect(kTunnelBytes);
  std::vector<double> rates;
  for (int i = 0; i < kTunnelRuns; ++i) {
    auto fd = open();
    rates.push_back(mib_per_s(kTunnelBytes, bench::push_to_sink(fd.get(), kTunnelBytes)));
  }
  return median(rates);
}

template <class Open>
double round_trip_us(Open open) {
  auto fd = open();
  bench::ping_pong(fd.get(), 200);  // warm up
  return median(bench::ping_pong(fd.get(), kPingRounds));
}

template <class Open>
double setup_us(Open open) {
  std::vector<double> times;
  for (int i = 0; i < kSetupRounds; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto fd = open();
    times.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
  }
  return median(times);
}

double scrubber_gib_per_s() {
  // 1 GiB of model-like output in 64 KiB pieces, with the key in one piece in sixteen.
  std::string piece(64 * 1024, 'a');
  for (std::size_t i = 0; i < piece.size(); i += 97) piece[i] = 's';
  std::string with_key = piece;
  with_key.replace(30000, kKey.size(), kKey);
  broker::StreamingScrubber scrubber(kKey);
  std::string out;
  out.reserve(piece.size() + 64);
  constexpr int kPieces = 16384;
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t produced = 0;
  for (int i = 0; i < kPieces; ++i) {
    out.clear();
    scrubber.feed(i % 16 == 0 ? with_key : piece, out);
    produced += out.size();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (scrubber.replacements() != kPieces / 16 || produced == 0) std::abort();
  return (double(kPieces) * piece.size()) / seconds / double(1ull << 30);
}

// The performance table's rows for tunnels, with the aims issue 19 set.
struct TunnelFigures {
  double direct_rate, broker_rate, tiny_rate, broker_open_us, tiny_open_us;
};

void print_tunnel_rows(const TunnelFigures& f) {
  using bench::Better;
  bench::print_table_row({.measure = "CONNECT tunnel throughput, broker vs direct loopback",
                          .unit = "MiB/s",
                          .errand = f.broker_rate,
                          .peer_name = "direct",
                          .peer = f.direct_rate,
                          .better = Better::higher,
                          .aim = 0.9});
  bench::print_table_row({.measure = "CONNECT tunnel throughput, broker vs tinyproxy",
                          .unit = "MiB/s",
                          .errand = f.broker_rate,
                          .peer_name = "tinyproxy",
                          .peer = f.tiny_rate,
                          .better = Better::higher,
                          .aim = 3});
  bench::print_table_row({.measure = "opening a tunnel, broker vs tinyproxy",
                          .unit = "us",
                          .errand = f.broker_open_us,
                          .peer_name = "tinyproxy",
                          .peer = f.tiny_open_us,
                          .better = Better::lower,
                          .aim = 1.0});
}

}  // namespace

int main(int argc, char** argv) {
  // bench_broker [io-threads]: how many threads run the broker's io_context (default 2).
  const int io_threads = argc > 1 ? std::atoi(argv[1]) : 2;
  // bench_broker <threads> provider: only the provider-route part, for profiling it.
  const bool provider_only = argc > 2 && std::string(argv[2]) == "provider";
  // bench_broker <threads> tunnel: only the tunnel throughput rows, for profiling them.
  const bool tunnel_only = argc > 2 && std::string(argv[2]) == "tunnel";
  broker::testing::TempDir work;
  fakes::RawTcpServer sink(fakes::RawTcpServer::Mode::sink, kTunnelBytes);
  fakes::RawTcpServer echo(fakes::RawTcpServer::Mode::echo);
  const auto ca = fakes::make_test_ca(work.path() / "ca");
  auto stream_script = [](const fakes::UpstreamRequest&) {
    fakes::UpstreamReply reply;
    reply.headers = {{"Content-Type", "text/event-stream"}};
    reply.generated_bytes = kStreamBytes;
    return reply;
  };
  fakes::FakeUpstream plain_provider(stream_script);
  fakes::FakeUpstream tls_provider(stream_script,
                                   fakes::FakeUpstream::Tls{ca.server_cert, ca.server_key});
  bench::TinyproxyPeer tinyproxy(work.path(), {sink.port(), echo.port()});

  auto config = broker::testing::base_config();
  auto& sandbox = config["sandbox"].as_object();
  sandbox["egressPorts"] = boost::json::array{sink.port(), echo.port()};
  sandbox["egress"].as_object()["allow"] = boost::json::array{"*"};
  sandbox["egress"].as_object()["allowInternal"] = boost::json::array{"127.0.0.1/32"};
  config["agent"].as_object()["providers"] = boost::json::object{
      {"plain", {{"credential", kKey}, {"kind", "openai"}, {"baseUrl", plain_provider.base_url()}}},
      {"tls", {{"credential", kKey}, {"kind", "openai"}, {"baseUrl", tls_provider.base_url()}}}};
  broker::BrokerOptions options;
  options.ca_file = ca.ca_cert;
  broker::testing::BrokerHarness harness(std::move(config), std::move(options), io_threads);
  const auto session = harness.open("bench");
  bench::RelayPeer relay(session.socket_path);

  auto direct_sink = [&] { return bench::connect_tcp(sink.port()); };
  auto broker_sink = [&] {
    return bench::tunnel_through_broker(session.socket_path, session.proxy_credential, sink.port());
  };
  auto relay_sink = [&] {
    return bench::tunnel_through_relay(relay.port(), session.proxy_credential, sink.port());
  };
  auto tiny_sink = [&] { return bench::tunnel_through_tinyproxy(tinyproxy.port(), sink.port()); };
  auto direct_echo = [&] { return bench::connect_tcp(echo.port()); };
  auto broker_echo = [&] {
    return bench::tunnel_through_broker(session.socket_path, session.proxy_credential, echo.port());
  };
  auto relay_echo = [&] {
    return bench::tunnel_through_relay(relay.port(), session.proxy_credential, echo.port());
  };
  auto tiny_echo = [&] { return bench::tunnel_through_tinyproxy(tinyproxy.port(), echo.port()); };

  fmt::print(
      "bench_broker: broker io_context on {} thread(s); {} MiB per tunnel run, median of {} "
      "runs; {} round trips; {} tunnel opens\n",
      io_threads, kTunnelBytes >> 20, kTunnelRuns, kPingRounds, kSetupRounds);
  double direct_rate = 1, broker_rate = 1, relay_rate = 1, tiny_rate = 1;
  double broker_setup = 1, tiny_setup = 1;
  if (!provider_only) {
    direct_rate = tunnel_throughput(direct_sink, sink);
    broker_rate = tunnel_throughput(broker_sink, sink);
    relay_rate = tunnel_throughput(relay_sink, sink);
    tiny_rate = tunnel_throughput(tiny_sink, sink);
    fmt::print("\nCONNECT tunnel throughput (MiB/s)\n");
    fmt::print("  direct loopback TCP   {:10.0f}\n", direct_rate);
    fmt::print("  errand broker         {:10.0f}   {:.2f}x tinyproxy, {:.0f}% of direct\n",
               broker_rate, broker_rate / tiny_rate, 100 * broker_rate / direct_rate);
    fmt::print("  relay, then broker    {:10.0f}   {:.0f}% of direct\n", relay_rate,
               100 * relay_rate / direct_rate);
    fmt::print("  tinyproxy 1.11        {:10.0f}\n", tiny_rate);
    if (tunnel_only) return 0;

    const double direct_rtt = round_trip_us(direct_echo);
    const double broker_rtt = round_trip_us(broker_echo);
    const double relay_rtt = round_trip_us(relay_echo);
    const double tiny_rtt = round_trip_us(tiny_echo);
    fmt::print("\nOne-byte round trip over an open tunnel (median, us)\n");
    fmt::print("  direct loopback TCP   {:10.1f}\n", direct_rtt);
    fmt::print("  errand broker         {:10.1f}   +{:.1f} us over direct\n", broker_rtt,
               broker_rtt - direct_rtt);
    fmt::print("  relay, then broker    {:10.1f}   +{:.1f} us over direct\n", relay_rtt,
               relay_rtt - direct_rtt);
    fmt::print("  tinyproxy 1.11        {:10.1f}   +{:.1f} us over direct\n", tiny_rtt,
               tiny_rtt - direct_rtt);

    const double direct_setup = setup_us(direct_echo);
    broker_setup = setup_us(broker_echo);
    const double relay_setup = setup_us(relay_echo);
    tiny_setup = setup_us(tiny_echo);
    fmt::print("\nOpening a connection (TCP connect, or CONNECT to 200; median, us)\n");
    fmt::print("  direct loopback TCP   {:10.1f}\n", direct_setup);
    fmt::print("  errand broker         {:10.1f}   {:.2f}x tinyproxy\n", broker_setup,
               broker_setup / tiny_setup);
    fmt::print("  relay, then broker    {:10.1f}\n", relay_setup);
    fmt::print("  tinyproxy 1.11        {:10.1f}\n", tiny_setup);
    print_tunnel_rows({direct_rate, broker_rate, tiny_rate, broker_setup, tiny_setup});
  }
  fmt::print(
      "\nProvider route, {} MiB streamed answer with the key scrubbed (MiB/s, median of {})\n",
      kStreamBytes >> 20, kStreamRuns);
  for (const std::string name : {"plain", "tls"}) {
    std::vector<double> rates;
    for (int i = 0; i < kStreamRuns; ++i) {
      const auto result = bench::stream_provider_answer(
          session.socket_path, "/provider/" + name + "/stream", session.stand_ins.at(name).value);
      if (result.head.rfind("HTTP/1.1 200", 0) != 0 || result.bytes < kStreamBytes) {
        fmt::print(stderr, "provider stream through {} failed: {}\n", name, result.head);
        return 1;
      }
      rates.push_back(mib_per_s(result.bytes, result.seconds));
    }
    fmt::print("  {:<20}  {:10.0f}\n", name == "plain" ? "http upstream" : "https upstream",
               median(rates));
  }
  {
    std::vector<double> rates;
    for (int i = 0; i < kStreamRuns; ++i) {
      const auto result = bench::stream_direct(plain_provider.port(), "/stream");
      rates.push_back(mib_per_s(result.bytes, result.seconds));
    }
    fmt::print("  {:<20}  {:10.0f}\n", "direct, no broker", median(rates));
  }
  if (!bench::print_provider_call_latency(io_threads)) return 1;
  const double scrub = scrubber_gib_per_s();
  fmt::print("\nStreaming scrubber alone, one core: {:.2f} GiB/s\n", scrub);

  fmt::print(
      "\nratios: broker/tinyproxy tunnel {:.2f} (aim >= 3), broker/direct tunnel {:.2f} "
      "(aim >= 0.90), relay+broker/direct tunnel {:.2f}, broker/tinyproxy tunnel open {:.2f} "
      "(aim <= 1.0), scrubber {:.2f} GiB/s (aim >= 1)\n",
      broker_rate / tiny_rate, broker_rate / direct_rate, relay_rate / direct_rate,
      broker_setup / tiny_setup, scrub);
  return 0;
}
