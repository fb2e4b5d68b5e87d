// The relay inside a sandbox (common/broker_relay), run in its own epoll loop as bailey's
// launcher and errand-relay run it, on a free loopback port in front of a unix socket standing
// in for the broker's. Checked from the agent's TCP end and the broker's unix end.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <cstring>
#include <future>
#include <thread>

#include "common/broker_relay/broker_relay.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/tunnel/pipe_openers.hpp"
#include "tests/unit/tunnel/stream_checks.hpp"

using namespace errand;
using namespace errand::tunnel_testing;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t kStopTag = 1;

class RelayUnderTest {
 public:
  explicit RelayUnderTest(Opener opener) {
    const auto socket_path = dir_ / "broker.sock";
    listener_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket_path.c_str(), sizeof addr.sun_path - 1);
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listener_, 8) != 0)
      throw std::runtime_error("the stand-in broker socket could not listen");
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    stop_ = ::eventfd(0, EFD_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kStopTag;
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, stop_, &ev);
    auto listening = broker_relay::Relay::listen(epoll_, socket_path, {0, opener});
    if (!listening) throw std::runtime_error(listening.error().message);
    relay_ = std::move(*listening);
    loop_ = std::thread([this] { run_loop(); });
  }
  ~RelayUnderTest() {
    stop();
    relay_.reset();
    ::close(stop_);
    ::close(epoll_);
    ::close(listener_);
  }

  // An agent's connection to 127.0.0.1:<relay port> and the broker's end of what the relay
  // opened for it.
  FdPair connect() {
    FdPair ends;
    ends.first = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(relay_->port());
    if (::connect(ends.first, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
      throw std::runtime_error("connecting to the relay failed");
    ends.second = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    return ends;
  }

  // Stops the loop, after which the relay may be inspected from the test's thread.
  void stop() {
    if (!loop_.joinable()) return;
    const std::uint64_t one = 1;
    (void)::write(stop_, &one, sizeof one);
    loop_.join();
  }
  std::size_t links() const { return relay_->links(); }

 private:
  void run_loop() {
    epoll_event events[16];
    while (true) {
      const int n = ::epoll_wait(epoll_, events, 16, -1);
      for (int i = 0; i < n; ++i) {
        if (events[i].data.u64 == kStopTag) return;
        relay_->on_event(events[i].data.u64, events[i].events);
      }
    }
  }

  test::TempDir dir_;
  int listener_ = -1, epoll_ = -1, stop_ = -1;
  std::unique_ptr<broker_relay::Relay> relay_;
  std::thread loop_;
};

struct Ends {
  FdPair fds;
  ~Ends() {
    ::close(fds.first);
    ::close(fds.second);
  }
};

}  // namespace

TEST_CASE("the relay carries large transfers both ways at once, byte for byte", "[relay]") {
  const Path path = GENERATE(kSpliced, kCopied);
  INFO(path.name);
  const int made = pipes_made, refused = pipes_refused;
  RelayUnderTest relay(path.opener);
  Ends link{relay.connect()};
  const auto up = byte_pattern(24 << 20, 3);
  const auto down = byte_pattern(24 << 20, 4);
  const auto result = exchange_both_ways(link.fds.first, link.fds.second, up, down);
  CHECK(result.got_at_b.size() == up.size());
  CHECK(same_bytes(result.got_at_b, up));
  CHECK(result.got_at_a.size() == down.size());
  CHECK(same_bytes(result.got_at_a, down));
  CHECK(pipes_made - made == (path.opener == counted_pipe ? 2 : 0));
  CHECK(pipes_refused - refused == (path.opener == refused_pipe ? 2 : 0));
  // Both directions ended, so the link is gone.
  relay.stop();
  CHECK(relay.links() == 0);
}

TEST_CASE("when the agent ends its side, the broker's answer still reaches it", "[relay]") {
  const Path path = GENERATE(kSpliced, kCopied);
  INFO(path.name);
  RelayUnderTest relay(path.opener);
  Ends link{relay.connect()};
  send_everything(link.fds.first, "CONNECT example.org:443 HTTP/1.1\r\n\r\n");
  ::shutdown(link.fds.first, SHUT_WR);
  CHECK(read_until_end(link.fds.second) == "CONNECT example.org:443 HTTP/1.1\r\n\r\n");
  const auto answer = byte_pattern(3 << 20, 5);
  send_everything(link.fds.second, answer);
  ::shutdown(link.fds.second, SHUT_WR);
  CHECK(same_bytes(read_until_end(link.fds.first), answer));
  relay.stop();
  CHECK(relay.links() == 0);
}

TEST_CASE("when the broker ends its side, the agent still sends through the relay", "[relay]") {
  const Path path = GENERATE(kSpliced, kCopied);
  INFO(path.name);
  RelayUnderTest relay(path.opener);
  Ends link{relay.connect()};
  send_everything(link.fds.second, "HTTP/1.1 200 Connection established\r\n\r\n");
  ::shutdown(link.fds.second, SHUT_WR);
  CHECK(read_until_end(link.fds.first) == "HTTP/1.1 200 Connection established\r\n\r\n");
  const auto late = byte_pattern(3 << 20, 6);
  send_everything(link.fds.first, late);
  ::shutdown(link.fds.first, SHUT_WR);
  CHECK(same_bytes(read_until_end(link.fds.second), late));
  relay.stop();
  CHECK(relay.links() == 0);
}

TEST_CASE("a broker that does not read holds the agent back instead of filling the relay",
          "[relay]") {
  const Path path = GENERATE(kSpliced, kCopied);
  INFO(path.name);
  RelayUnderTest relay(path.opener);
  Ends link{relay.connect()};
  // Socket buffers on both hops and one pipe: a few MiB here. A relay that buffered without
  // bound would take all 64 MiB.
  const std::size_t taken = send_until_stalled(link.fds.first, 300ms, 64 << 20);
  CHECK(taken > 0);
  CHECK(taken < (16u << 20));
  auto reader = std::async(std::launch::async, read_until_end, link.fds.second);
  send_everything(link.fds.first, "and the rest");
  ::shutdown(link.fds.first, SHUT_WR);
  const std::string got = reader.get();
  CHECK(got.size() == taken + 12);
  CHECK(got.ends_with("and the rest"));
}

TEST_CASE("a reset on the agent's side ends the relay's link", "[relay]") {
  RelayUnderTest relay(kSpliced.opener);
  Ends link{relay.connect()};
  send_everything(link.fds.first, "hello");
  char five[5];
  CHECK(::recv(link.fds.second, five, 5, MSG_WAITALL) == 5);
  const linger abort_close{1, 0};
  ::setsockopt(link.fds.first, SOL_SOCKET, SO_LINGER, &abort_close, sizeof abort_close);
  ::close(link.fds.first);
  link.fds.first = ::socket(AF_INET, SOCK_STREAM, 0);
  CHECK(read_until_end(link.fds.second).empty());
  relay.stop();
  CHECK(relay.links() == 0);
}
