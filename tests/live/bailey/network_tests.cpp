// The network boundary under each mode. Host services listen on 127.0.0.1 only; the host's own
// non-loopback addresses are only ever tried from inside the sandbox, which has no route there.

#include <unistd.h>

#include <boost/json/array.hpp>
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "plugins/sandbox-bailey/common/host_features.hpp"
#include "tests/live/bailey/live_harness.hpp"
#include "tests/support/own_network_check.hpp"

using namespace bailey_live;

namespace {

bool connect_failed(const Outcome& r) {
  return r.launched && r.exit.exit_code == 1 && contains(r.out, "errno=") &&
         !contains(r.out, "HOST-SERVICE");
}

// The host's non-loopback addresses inside the test's own network: the two it was made with.
std::vector<std::string> own_addresses() {
  auto addresses = host_addresses();
  const auto carried = [&](const char* address) {
    return std::find(addresses.begin(), addresses.end(), address) != addresses.end();
  };
  CHECK(carried(errand::test::kOwnAddressV4));
  CHECK(carried(errand::test::kOwnAddressV6));
  return addresses;
}

}  // namespace

TEST_CASE("under the broker nothing but the relay is reachable", "[live]") {
  require_full_host();
  Harness h;
  HostTcpService service;
  REQUIRE(service.bound());
  const auto port = std::to_string(service.port());

  SECTION("the host's loopback service, directly") {
    const auto r = h.run(h.spec({"tcp", "127.0.0.1", port}));
    INFO(r.out);
    CHECK(connect_failed(r));
  }
  SECTION("the host's own addresses have no route from inside") {
    // In a network of the test's own, so a loopback-only host checks it too.
    errand::test::check_passes_in_own_network(
        "own network: the host's own addresses have no route from inside under the broker");
  }
  SECTION("no address maps to the host: link-local and pasta-style gateways lead nowhere") {
    for (const char* address : {"169.254.169.1", "10.0.2.2", "172.17.0.1"}) {
      const auto r = h.run(h.spec({"tcp", address, "3128"}));
      INFO(address << ": " << r.out);
      CHECK(contains(r.out, "errno=ENETUNREACH"));
    }
  }
  SECTION("the relay's port leads to the broker and nowhere else") {
    // A host service on 127.0.0.1:3128 too, where the port is free: the sandbox must still get
    // its broker's echo, never the host's greeting.
    HostTcpService on_relay_port(3128);
    const auto r = h.run(h.spec({"tcp-echo", "127.0.0.1", "3128", "only-the-broker"}));
    INFO(r.out << " (host service on 3128: " << on_relay_port.bound() << ")");
    CHECK(r.out == "ok echo=only-the-broker\n");
  }
  SECTION("UDP to the host's loopback gets no answer") {
    HostUdpEcho echo;
    const auto r = h.run(h.spec({"udp", "127.0.0.1", std::to_string(echo.port())}));
    INFO(r.out);
    CHECK(r.exit.exit_code == 1);
    CHECK((contains(r.out, "errno=ECONNREFUSED") || contains(r.out, "errno=ETIMEDOUT")));
  }
  SECTION("UDP and DNS toward the outside fail") {
    const auto udp = h.run(h.spec({"udp", "192.0.2.53", "53"}));
    CHECK(contains(udp.out, "errno=ENETUNREACH"));
    const auto dns = h.run(h.spec({"dns", "example.com"}));
    INFO(dns.out);
    CHECK(dns.exit.exit_code == 1);
    CHECK(contains(dns.out, "errno=EAI"));
  }
  SECTION("an abstract unix socket the host listens on is unreachable") {
    const auto name = "errand-live-abstract-" + std::to_string(::getpid());
    HostAbstractListener listener(name);
    const auto r = h.run(h.spec({"abstract", name}));
    INFO(r.out);
    CHECK(r.exit.exit_code == 1);
    CHECK((contains(r.out, "errno=ECONNREFUSED") || contains(r.out, "errno=EPERM")));
  }
}

// The inner half of the section above, run where the host has addresses of the test's own.
TEST_CASE("own network: the host's own addresses have no route from inside under the broker",
          "[.own-network]") {
  require_full_host();
  const auto addresses = own_addresses();
  Harness h;
  HostTcpService service;
  REQUIRE(service.bound());
  const auto port = std::to_string(service.port());
  for (const auto& address : addresses) {
    // On the relay's own port, so Landlock lets the attempt reach the routing decision.
    const auto r = h.run(h.spec({"tcp", address, "3128"}));
    INFO(address << ": " << r.out);
    CHECK(connect_failed(r));
    CHECK(contains(r.out, "errno=ENETUNREACH"));
    const auto direct = h.run(h.spec({"tcp", address, port}));
    CHECK(connect_failed(direct));
  }
}

// The inner half of the case below.
TEST_CASE("own network: network none is an empty namespace", "[.own-network]") {
  require_full_host();
  const auto addresses = own_addresses();
  Harness h(boost::json::object{{"network", "none"}});
  const auto addrs = h.run(h.spec({"addrs"}));
  INFO(addrs.out << addrs.launch_error);
  REQUIRE(addrs.launched);
  for (const auto& a : addresses) CHECK_FALSE(contains(addrs.out, a));
  const auto relay = h.run(h.spec({"tcp", "127.0.0.1", "3128"}));
  CHECK(connect_failed(relay));
  const auto out = h.run(h.spec({"tcp", "192.0.2.1", "443"}));
  CHECK(connect_failed(out));
}

TEST_CASE("network none is an empty namespace",
          "[live][own_network]"
          "[key:sandbox.network]") {
  require_full_host();
  // In a network of the test's own, so the host has an address the sandbox must not see.
  errand::test::check_passes_in_own_network("own network: network none is an empty namespace");
}

TEST_CASE("egress open shares the host's network but holds TCP to the allowed ports",
          "[live]"
          "[key:sandbox.egress.mode]"
          "[key:sandbox.egressPorts]") {
  require_full_host();
  HostTcpService allowed, other;
  REQUIRE(allowed.bound());
  Harness h(boost::json::object{{"egress", boost::json::object{{"mode", "open"}}},
                                {"egressPorts", boost::json::array{allowed.port()}}});
  const auto ok = h.run(h.spec({"tcp", "127.0.0.1", std::to_string(allowed.port())}));
  INFO(ok.out << ok.launch_error);
  CHECK(ok.out == "ok banner=HOST-SERVICE\n");
  const auto refused = h.run(h.spec({"tcp", "127.0.0.1", std::to_string(other.port())}));
  INFO(refused.out);
  CHECK(contains(refused.out, "errno=EACCES"));
  const auto name = "errand-live-open-abstract-" + std::to_string(::getpid());
  HostAbstractListener listener(name);
  const auto abstract = h.run(h.spec({"abstract", name}));
  INFO(abstract.out);
  CHECK(contains(abstract.out, "errno=EPERM"));
}

TEST_CASE("hideHostAddress gives the session pasta's synthetic address and not the host's",
          "[live]"
          "[key:sandbox.hideHostAddress]") {
  require_full_host();
  HostTcpService service;
  Harness h(boost::json::object{{"egress", boost::json::object{{"mode", "open"}}},
                                {"hideHostAddress", true},
                                {"egressPorts", boost::json::array{service.port()}}});
  if (const auto pasta = errand::bailey::find_pasta(); !pasta) {
    const std::string& why_not = pasta.error().message;
    const char* mode = std::getenv("ERRAND_LIVE_TESTS");
    if (mode != nullptr && std::string(mode) == "skip") SKIP(why_not);
    FAIL(why_not << ", so hideHostAddress cannot be tested (scripts/setup installs passt)");
  }
  const auto addrs = h.run(h.spec({"addrs"}));
  INFO(addrs.out << addrs.launch_error << addrs.err);
  REQUIRE(addrs.launched);
  CHECK(contains(addrs.out, "10.0.2.15"));
  for (const auto& a : host_addresses()) CHECK_FALSE(contains(addrs.out, a + "\n"));
  // The namespace's loopback is its own: the host's service is not there.
  const auto r = h.run(h.spec({"tcp", "127.0.0.1", std::to_string(service.port())}));
  INFO(r.out);
  CHECK(connect_failed(r));
}

// Sessions of a plan whose resolvers never change share one resolv.conf the daemon writes once;
// each sees it as its own /etc/resolv.conf, and none can change it.
TEST_CASE("under the broker /etc/resolv.conf names no resolver and cannot be changed", "[live]") {
  require_full_host();
  Harness h;
  for (const char* session : {"resolv-first", "resolv-second"}) {
    const auto r = h.run(h.spec({"exec", "/bin/cat", "/etc/resolv.conf"}, session));
    INFO(session << ": " << r.out << r.err << r.launch_error);
    REQUIRE(r.launched);
    CHECK(r.exit.exit_code == 0);
    CHECK(contains(r.out, "nameserver 127.0.0.1\n"));
    const auto w = h.run(h.spec({"write", "/etc/resolv.conf"}, std::string(session) + "-write"));
    INFO(w.out);
    CHECK((contains(w.out, "errno=EROFS") || contains(w.out, "errno=EACCES")));
  }
}
