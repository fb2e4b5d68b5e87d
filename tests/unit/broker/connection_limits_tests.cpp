// What one session may hold of the daemon's file descriptors at its broker socket: at most the
// relay's cap of connections (more are answered 503 and closed), none of them idle without a
// request head past the head deadline (408), and another session served all the while.

#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "common/broker_relay/broker_relay.hpp"
#include "tests/unit/broker/support/broker_client.hpp"
#include "tests/unit/broker/support/broker_harness.hpp"

using namespace errand::broker;
using namespace errand::broker::testing;
using namespace std::chrono_literals;

namespace {

int open_descriptors() {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd"))
    ++n;
  return n;
}

int connect_raw(const std::filesystem::path& socket_path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", socket_path.c_str());
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  return fd;
}

// Reads what the broker answers on each connection until `expected` of them have answered or
// the wait is over; returns the answers' first bytes, empty for a connection that got none.
std::vector<std::string> answers(const std::vector<int>& fds, int expected,
                                 std::chrono::milliseconds wait) {
  std::vector<std::string> got(fds.size());
  int answered = 0;
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (answered < expected && std::chrono::steady_clock::now() < deadline) {
    std::vector<pollfd> pending;
    std::vector<std::size_t> index;
    for (std::size_t i = 0; i < fds.size(); ++i)
      if (got[i].empty()) {
        pending.push_back({fds[i], POLLIN, 0});
        index.push_back(i);
      }
    if (::poll(pending.data(), pending.size(), 200) <= 0) continue;
    for (std::size_t k = 0; k < pending.size(); ++k) {
      if ((pending[k].revents & (POLLIN | POLLHUP)) == 0) continue;
      char buf[64];
      const auto n = ::read(pending[k].fd, buf, sizeof buf);
      got[index[k]] = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "(closed)";
      ++answered;
    }
  }
  return got;
}

}  // namespace

TEST_CASE("a session's connections past the cap are refused 503, and another session is served",
          "[broker][integration]") {
  // The test holds 2,000 connections and the broker its side of 512 of them.
  rlimit limit{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit) == 0);
  limit.rlim_cur = limit.rlim_max;
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &limit) == 0);
  REQUIRE(limit.rlim_cur >= 4096);

  BrokerHarness harness(base_config());
  const auto greedy = harness.open("s-greedy");
  const auto other = harness.open("s-other");
  const int before = open_descriptors();
  constexpr int kOpened = 2000;
  std::vector<int> held;
  for (int i = 0; i < kOpened; ++i) held.push_back(connect_raw(greedy.socket_path));

  // Those past the cap are answered at once; the first 512 wait for a head, answered nothing.
  const int cap = static_cast<int>(errand::broker_relay::kMaxLinks);
  const auto got = answers(held, kOpened - cap, 30s);
  int refused = 0;
  int silent = 0;
  for (const auto& answer : got) {
    if (answer.starts_with("HTTP/1.1 503")) ++refused;
    if (answer.empty()) ++silent;
  }
  // A moment more: none of the 512 answered late.
  std::vector<int> waiting;
  for (std::size_t i = 0; i < held.size(); ++i)
    if (got[i].empty()) waiting.push_back(held[i]);
  const auto late = answers(waiting, 1, 500ms);
  CHECK(std::count(late.begin(), late.end(), std::string()) == static_cast<long>(waiting.size()));
  CHECK(silent == cap);
  CHECK(refused == kOpened - cap);
  CHECK(
      harness.log_contains("session s-greedy: 512 connections are open, the most a session "
                           "may hold; refusing new ones with 503 until some close"));
  // Logged once, not once per refusal.
  int warnings = 0;
  for (const auto& line : harness.log_lines())
    if (line.find("the most a session may hold") != std::string::npos) ++warnings;
  CHECK(warnings == 1);

  // Meanwhile another session's request is answered (without its credential: 407).
  BrokerClient client(other.socket_path, 10s);
  client.send("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
  CHECK(client.read_response().status == 407);

  // The descriptors in this process: the test's 2,000 and the broker's side of at most 512
  // (the refused ones were closed by the broker), with a little room for the harness.
  const int during = open_descriptors();
  CHECK(during - before <= kOpened + cap + 32);

  // Once the held ones close, the session takes connections again.
  for (const int fd : held) ::close(fd);
  bool served = false;
  for (int attempt = 0; attempt < 50 && !served; ++attempt) {
    BrokerClient again(greedy.socket_path, 5s);
    again.send("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
    served = again.read_response().status == 407;
    if (!served) std::this_thread::sleep_for(100ms);
  }
  CHECK(served);
}

TEST_CASE("a connection that sends no request head within the deadline is answered 408 and closed",
          "[broker][integration]") {
  BrokerOptions options;
  options.head_deadline = 300ms;
  BrokerHarness harness(base_config(), options);
  const auto session = harness.open("s-idle");
  BrokerClient idle(session.socket_path, 10s);
  const auto started = std::chrono::steady_clock::now();
  const auto answer = idle.read_response();
  CHECK(answer.status == 408);
  CHECK(answer.body == "errand broker: no request head arrived within 300 ms\n");
  // Not before the deadline (a lower bound only: the machine may be slow).
  CHECK(std::chrono::steady_clock::now() - started >= 300ms);
  CHECK(idle.closed_by_broker());
  CHECK(
      harness.log_contains("session s-idle: a connection sent no request head within 300 ms; "
                           "closed"));
  // A kept-alive connection gets the same deadline for its next head, after a first request.
  BrokerClient kept(session.socket_path, 10s);
  kept.send("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
  CHECK(kept.read_response().status == 407);
}
