// The broker's CONNECT tunnel (run_tunnel) between a unix socket, as the session's side, and a
// loopback TCP connection, as the upstream's, checked from the two outer ends.

#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <chrono>
#include <future>
#include <optional>
#include <thread>

#include "plugins/broker/relay/tunnel.hpp"
#include "tests/unit/tunnel/pipe_openers.hpp"
#include "tests/unit/tunnel/stream_checks.hpp"

using namespace errand;
using namespace errand::tunnel_testing;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

// A tunnel running on its own io_context thread. agent is the session's end of the unix socket,
// server the upstream's end of the TCP connection; both are plain blocking sockets.
class TunnelUnderTest {
 public:
  explicit TunnelUnderTest(Opener opener, std::string already_read = {})
      : already_read_(std::move(already_read)), client_(io_), upstream_(io_) {
    int unix_pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, unix_pair) != 0)
      throw std::runtime_error("socketpair failed");
    agent = unix_pair[0];
    client_.assign(asio::local::stream_protocol(), unix_pair[1]);
    const auto tcp = tcp_pair();
    upstream_.assign(asio::ip::tcp::v4(), tcp.first);
    server = tcp.second;
    asio::co_spawn(io_, broker::run_tunnel(client_, upstream_, asio::buffer(already_read_), opener),
                   [this](std::exception_ptr e, broker::TunnelCounts counts) {
                     if (e) std::rethrow_exception(e);
                     done_.set_value(counts);
                   });
    runner_ = std::thread([this] { io_.run(); });
  }
  ~TunnelUnderTest() {
    ::close(agent);
    ::close(server);
    runner_.join();
  }

  // The counts once both directions have finished; nothing if it is still running after 10 s.
  std::optional<broker::TunnelCounts> finished() {
    auto future = done_.get_future();
    if (future.wait_for(10s) != std::future_status::ready) return std::nullopt;
    return future.get();
  }

  int agent = -1;
  int server = -1;

 private:
  std::string already_read_;
  asio::io_context io_;
  asio::local::stream_protocol::socket client_;
  asio::ip::tcp::socket upstream_;
  std::promise<broker::TunnelCounts> done_;
  std::thread runner_;
};

}  // namespace

TEST_CASE("a tunnel carries large transfers both ways at once, byte for byte", "[tunnel]") {
  const Path path = GENERATE(kSpliced, kCopied);
  INFO(path.name);
  const int made = pipes_made, refused = pipes_refused;
  const std::string early = "bytes sent behind the CONNECT head";
  TunnelUnderTest tunnel(path.opener, early);
  const auto up = byte_pattern(24 << 20, 1);
  const auto down = byte_pattern(24 << 20, 2);
  const auto result = exchange_both_ways(tunnel.agent, tunnel.server, up, down);
  CHECK(result.got_at_b.size() == early.size() + up.size());
  CHECK(same_bytes(result.got_at_b, early + up));
  CHECK(result.got_at_a.size() == down.size());
  CHECK(same_bytes(result.got_at_a, down));
  const auto counts = tunnel.finished();
  REQUIRE(counts);
  CHECK(counts->up == early.size() + up.size());
  CHECK(counts->down == down.size());
  // Each direction asked for its own pipe, and the copy path had none.
  CHECK(pipes_made - made == (path.opener == counted_pipe ? 2 : 0));
  CHECK(pipes_refused - refused == (path.opener == refused_pipe ? 2 : 0));
}

TEST_CASE("when the session ends its side, the upstream still answers through the tunnel",
          "[tunnel]") {
  const Path path = GENERATE(kSpliced, kCopied);
  INFO(path.name);
  TunnelUnderTest tunnel(path.opener);
  send_everything(tunnel.agent, "the whole request");
  ::shutdown(tunnel.agent, SHUT_WR);
  CHECK(read_until_end(tunnel.server) == "the whole request");
  const auto reply = byte_pattern(3 << 20, 7);
  send_everything(tunnel.server, reply);
  ::shutdown(tunnel.server, SHUT_WR);
  CHECK(same_bytes(read_until_end(tunnel.agent), reply));
  const auto counts = tunnel.finished();
  REQUIRE(counts);
  CHECK(counts->down == reply.size());
}

TEST_CASE("when the upstream ends its side, the session still sends through the tunnel",
          "[tunnel]") {
  const Path path = GENERATE(kSpliced, kCopied);
  INFO(path.name);
  TunnelUnderTest tunnel(path.opener);
  send_everything(tunnel.server, "a banner, then silence");
  ::shutdown(tunnel.server, SHUT_WR);
  CHECK(read_until_end(tunnel.agent) == "a banner, then silence");
  const auto late = byte_pattern(3 << 20, 8);
  send_everything(tunnel.agent, late);
  ::shutdown(tunnel.agent, SHUT_WR);
  CHECK(same_bytes(read_until_end(tunnel.server), late));
  const auto counts = tunnel.finished();
  REQUIRE(counts);
  CHECK(counts->up == late.size());
}

TEST_CASE("a tunnel whose upstream does not read holds the session back instead of buffering",
          "[tunnel]") {
  const Path path = GENERATE(kSpliced, kCopied);
  INFO(path.name);
  TunnelUnderTest tunnel(path.opener);
  // What the kernel may hold on the way: the socket buffers on both hops and one pipe, a few MiB
  // at most here. A tunnel that buffered without bound would take all 64 MiB.
  const std::size_t taken = send_until_stalled(tunnel.agent, 300ms, 64 << 20);
  CHECK(taken > 0);
  CHECK(taken < (16u << 20));
  // Once the upstream reads, everything held arrives and the tunnel carries on.
  auto reader = std::async(std::launch::async, read_until_end, tunnel.server);
  send_everything(tunnel.agent, "and the rest");
  ::shutdown(tunnel.agent, SHUT_WR);
  const std::string got = reader.get();
  CHECK(got.size() == taken + 12);
  CHECK(got.ends_with("and the rest"));
  ::shutdown(tunnel.server, SHUT_WR);
  CHECK(tunnel.finished().has_value());
}

TEST_CASE("a reset upstream ends both directions of the tunnel", "[tunnel]") {
  TunnelUnderTest tunnel(kSpliced.opener);
  send_everything(tunnel.agent, "hello");
  char five[5];
  CHECK(::recv(tunnel.server, five, 5, MSG_WAITALL) == 5);
  // SO_LINGER 0: close sends a reset rather than an orderly end.
  const linger abort_close{1, 0};
  ::setsockopt(tunnel.server, SOL_SOCKET, SO_LINGER, &abort_close, sizeof abort_close);
  ::close(tunnel.server);
  tunnel.server = ::socket(AF_INET, SOCK_STREAM, 0);  // something for the destructor to close
  CHECK(read_until_end(tunnel.agent).empty());
  CHECK(tunnel.finished().has_value());
}
