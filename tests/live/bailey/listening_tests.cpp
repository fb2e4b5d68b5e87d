// What an agent's own servers need: a TCP server on loopback that its own clients reach, and
// named unix sockets in its own directories. Under the broker and with no network the
// namespace is private, so any port is the session's; under egress open only
// sandbox.listenPorts may be bound.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/json/array.hpp>
#include <catch2/catch_test_macros.hpp>

#include "tests/live/bailey/live_harness.hpp"

using namespace bailey_live;

namespace {

bool answered(const Outcome& r) {
  return r.launched && r.exit.exit_code == 0 && contains(r.out, "ok banner=INSIDE-SERVICE\n");
}

// A port free on the host's loopback right now, for a session that shares the host's network.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

}  // namespace

TEST_CASE("under the broker a TCP server on 127.0.0.1:0 starts and answers its own client",
          "[live]") {
  require_full_host();
  Harness h;
  const auto r = h.run(h.spec({"tcp-serve", "127.0.0.1", "0"}));
  INFO(r.out << r.err << r.launch_error);
  CHECK(answered(r));
  // A fixed port works too, and the relay still reaches the broker beside it.
  const auto fixed = h.run(h.spec({"tcp-serve", "127.0.0.1", "8080"}));
  INFO(fixed.out << fixed.err);
  CHECK(answered(fixed));
}

TEST_CASE("with network none a TCP server still starts on its own loopback", "[live]") {
  require_full_host();
  Harness h(boost::json::object{{"network", "none"}});
  const auto r = h.run(h.spec({"tcp-serve", "127.0.0.1", "0"}));
  INFO(r.out << r.err << r.launch_error);
  CHECK(answered(r));
}

TEST_CASE("under egress open only the ports of sandbox.listenPorts may be bound",
          "[live][key:sandbox.listenPorts]") {
  require_full_host();
  const int listed = free_port();
  const int other = free_port();
  Harness h(boost::json::object{{"egress", boost::json::object{{"mode", "open"}}},
                                {"listenPorts", boost::json::array{listed}}});
  SECTION("a listed port binds, and the session's own client reaches it") {
    const auto r = h.run(h.spec({"tcp-serve", "127.0.0.1", std::to_string(listed)}));
    INFO(r.out << r.err << r.launch_error);
    CHECK(answered(r));
  }
  SECTION("another port, or one the kernel picks, is refused by Landlock") {
    for (const auto port : {other, 0}) {
      const auto r = h.run(h.spec({"tcp-serve", "127.0.0.1", std::to_string(port)}));
      INFO(port << ": " << r.out << r.err << r.launch_error);
      REQUIRE(r.launched);
      CHECK(r.exit.exit_code == 1);
      CHECK(contains(r.out, "errno=EACCES "));
    }
  }
}

TEST_CASE("named unix sockets in /tmp, /workspace and /state connect", "[live]") {
  require_full_host();
  Harness h;
  for (const char* path :
       {"/tmp/errand-live.sock", "/workspace/errand-live.sock", "/state/home/errand-live.sock"}) {
    const auto r = h.run(h.spec({"unix-serve", path}));
    INFO(path << ": " << r.out << r.err << r.launch_error);
    CHECK(answered(r));
  }
}
