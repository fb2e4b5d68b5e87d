#include <sys/stat.h>

#include <catch2/catch_test_macros.hpp>

#include "tests/support/own_network_check.hpp"
#include "tests/support/result_printing.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <boost/asio/ip/tcp.hpp>
#include <thread>

#include "plugins/broker/admission/address_judge.hpp"
#include "plugins/broker/admission/host_addresses.hpp"
#include "tests/fakes/upstream/fake_upstream.hpp"
#include "tests/fakes/upstream/raw_tcp_server.hpp"
#include "tests/fakes/upstream/test_ca.hpp"
#include "tests/unit/broker/support/broker_client.hpp"
#include "tests/unit/broker/support/broker_harness.hpp"
#include "tests/unit/broker/support/fixed_resolver.hpp"

using namespace errand::broker;
using namespace errand::broker::testing;
using errand::fakes::FakeUpstream;
using errand::fakes::RawTcpServer;
using errand::fakes::UpstreamReply;
using errand::fakes::UpstreamRequest;

namespace {

std::uint16_t closed_port() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor acceptor(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return acceptor.local_endpoint().port();
}

struct ProxyFixture {
  TempDir ca_dir;
  errand::fakes::TestCa ca = errand::fakes::make_test_ca(ca_dir.path());
  FakeUpstream https{[](const UpstreamRequest& r) {
                       UpstreamReply reply;
                       reply.pieces = {"secure hello for " + r.target};
                       return reply;
                     },
                     FakeUpstream::Tls{ca.server_cert, ca.server_key}};
  FakeUpstream plain{[](const UpstreamRequest& r) {
    UpstreamReply reply;
    reply.headers = {{"X-Seen-Target", r.target}, {"Keep-Alive", "timeout=5"}};
    reply.pieces = {"plain hello"};
    reply.content_length = 11;
    return reply;
  }};
  RawTcpServer echo{RawTcpServer::Mode::echo};
  std::uint16_t dead_port = closed_port();
  std::shared_ptr<FixedResolver> resolver = std::make_shared<FixedResolver>();

  // The loopback address the fake upstreams listen on, as sandbox.egress.allowInternal lists it.
  const boost::json::array loopback{"127.0.0.1/32"};

  boost::json::object config(boost::json::array allow_internal, boost::json::array allow) {
    auto c = base_config();
    auto& sandbox = c["sandbox"].as_object();
    sandbox["egressPorts"] = boost::json::array{https.port(), plain.port(), echo.port(), dead_port};
    sandbox["egress"].as_object()["allowInternal"] = allow_internal;
    sandbox["egress"].as_object()["allow"] = std::move(allow);
    return c;
  }

  BrokerOptions options() {
    resolver->map("internal.test", {"127.0.0.1"});
    resolver->map("private.test", {"10.0.0.1", "192.168.1.1"});
    resolver->map("mapped.test", {"::ffff:127.0.0.1"});
    resolver->map("fabric.test", {"168.63.129.16"});
    resolver->hang("slow.test");
    BrokerOptions o;
    o.resolver = resolver;
    o.lookup_deadline = std::chrono::milliseconds(300);
    o.dial_deadline = std::chrono::milliseconds(2000);
    return o;
  }
};

std::string connect_request(std::string_view authority, std::string_view credential) {
  std::string out = fmt::format("CONNECT {0} HTTP/1.1\r\nHost: {0}\r\n", authority);
  if (!credential.empty()) out += "Proxy-Authorization: " + basic_auth(credential) + "\r\n";
  return out + "\r\n";
}

// A CONNECT to authority with the session's own credential, on a connection of its own, and
// the broker's answer.
ClientResponse connect_from(const errand::sdk::BrokerSession& session,
                            const std::string& authority) {
  BrokerClient client(session.socket_path);
  client.send(connect_request(authority, session.proxy_credential));
  return client.read_response();
}

}  // namespace

TEST_CASE_METHOD(ProxyFixture, "a CONNECT tunnel carries TLS to a loopback upstream",
                 "[proxy][integration]") {
  BrokerHarness harness(config(loopback, {"*"}), options());
  const auto session = harness.open("s-tunnel");
  BrokerClient client(session.socket_path);
  client.send(connect_request(fmt::format("127.0.0.1:{}", https.port()), session.proxy_credential));
  const auto established = client.read_response(true);
  REQUIRE(established.status == 200);
  const auto answer = client.tls_get_through_tunnel(ca.ca_cert, "127.0.0.1", "/through");
  REQUIRE_FALSE(answer.error);
  CHECK(answer.status == 200);
  CHECK(answer.body == "secure hello for /through");
  CHECK(
      harness.log_contains(fmt::format("session s-tunnel: CONNECT 127.0.0.1:{} allowed by "
                                       "sandbox.egress.allow entry \"*\"; tunnel to 127.0.0.1 "
                                       "(internal, listed by sandbox.egress.allowInternal entry "
                                       "\"127.0.0.1/32\") open",
                                       https.port())));
}

TEST_CASE_METHOD(ProxyFixture, "CONNECT without the session's credential is answered 407 first",
                 "[proxy][integration]") {
  BrokerHarness harness(config(loopback, {"*"}), options());
  const auto a = harness.open("s-a");
  const auto b = harness.open("s-b");
  const auto target = fmt::format("127.0.0.1:{}", echo.port());

  BrokerClient none(a.socket_path);
  none.send(connect_request(target, ""));
  auto reply = none.read_response();
  CHECK(reply.status == 407);
  CHECK(reply.header("Proxy-Authenticate") == "Basic realm=\"errand\"");
  CHECK(reply.body.find("proxy credential") != std::string::npos);

  BrokerClient wrong(a.socket_path);
  wrong.send(connect_request(target, "errand-session-" + std::string(64, '0')));
  CHECK(wrong.read_response().status == 407);

  BrokerClient other(a.socket_path);
  other.send(connect_request(target, b.proxy_credential));
  CHECK(other.read_response().status == 407);
  CHECK(harness.log_contains("session s-a: CONNECT " + target +
                             " refused 407: the credential belongs to another session"));

  // The one with the right credential on the same listener goes through.
  BrokerClient right(b.socket_path);
  right.send(connect_request(target, b.proxy_credential));
  REQUIRE(right.read_response(true).status == 200);
  CHECK(right.echo_through_tunnel("ping") == "ping");
  CHECK(echo.accepted() == 1);
}

TEST_CASE_METHOD(ProxyFixture, "only ports in sandbox.egressPorts are opened",
                 "[proxy][integration]"
                 "[key:sandbox.egressPorts]") {
  BrokerHarness harness(config(loopback, {"*"}), options());
  const auto s = harness.open("s-port");
  BrokerClient client(s.socket_path);
  client.send(connect_request("127.0.0.1:22", s.proxy_credential));
  const auto reply = client.read_response();
  CHECK(reply.status == 403);
  CHECK(reply.body.find("port 22") != std::string::npos);
  CHECK(reply.body.find("sandbox.egressPorts") != std::string::npos);
  CHECK(harness.events().refusals().empty());
}

TEST_CASE_METHOD(ProxyFixture, "a host off the allowlist is refused with what to ask for",
                 "[proxy][integration][grants]") {
  BrokerHarness harness(config(loopback, {"api.allowed.test"}), options());
  const auto s = harness.open("s-grant");
  const auto port = echo.port();
  auto refuse = [&](const std::string& host) {
    BrokerClient client(s.socket_path);
    client.send(connect_request(fmt::format("{}:{}", host, port), s.proxy_credential));
    return client.read_response();
  };
  const auto reply = refuse("api.example.com");
  CHECK(reply.status == 403);
  CHECK(reply.body.find("`!grant api.example.com` lets its next connection through") !=
        std::string::npos);
  CHECK(reply.body.find("`!grant api.example.com 10m`") != std::string::npos);
  CHECK(reply.body.find("`!grant api.example.com always`") != std::string::npos);
  // The same host again within the minute tells the core nothing new.
  CHECK(refuse("api.example.com").status == 403);
  CHECK(refuse("b.example.com").status == 403);
  CHECK(refuse("c.example.com").status == 403);
  CHECK(refuse("d.example.com").status == 403);
  // Events reach the core in the order they were made: once a later session's refusal has
  // arrived, everything s-grant's refusals would have told the core has arrived too.
  const auto other = harness.open("s-marker");
  BrokerClient marker(other.socket_path);
  marker.send(connect_request(fmt::format("marker.example.com:{}", port), other.proxy_credential));
  CHECK(marker.read_response().status == 403);
  REQUIRE(harness.events().wait_until([](const RecordingEvents& e) {
    const auto all = e.refusals();
    return !all.empty() && all.back().session_id == "s-marker";
  }));
  auto refusals = harness.events().refusals();
  refusals.pop_back();
  REQUIRE(refusals.size() == 3);
  CHECK(refusals[0].host == "api.example.com");
  CHECK(refusals[0].session_id == "s-grant");
  CHECK(refusals[0].port == port);
  CHECK(refusals[0].suggestable);
  CHECK(refusals[2].host == "c.example.com");
  CHECK(echo.accepted() == 0);
}

TEST_CASE_METHOD(ProxyFixture, "a once grant lets the next connection through and no other",
                 "[proxy][integration][grants]") {
  BrokerHarness harness(config(loopback, {}), options());
  const auto s = harness.open("s-once");
  const auto target = fmt::format("127.0.0.1:{}", echo.port());
  {
    BrokerClient client(s.socket_path);
    client.send(connect_request(target, s.proxy_credential));
    CHECK(client.read_response().status == 403);
  }
  const auto granted =
      harness.broker().grant("s-once", {"127.0.0.1", errand::sdk::GrantSpan::once, {}, "owner"});
  REQUIRE(granted);
  const auto grants_file = harness.record_dir("s-once") / "grants.json";
  CHECK(std::filesystem::exists(grants_file));
  {
    BrokerClient client(s.socket_path);
    client.send(connect_request(target, s.proxy_credential));
    REQUIRE(client.read_response(true).status == 200);
    CHECK(client.echo_through_tunnel("granted") == "granted");
  }
  {
    BrokerClient client(s.socket_path);
    client.send(connect_request(target, s.proxy_credential));
    CHECK(client.read_response().status == 403);
  }
  CHECK(harness.broker().grants("s-once")->empty());
  // A grant never opens a port outside egressPorts.
  REQUIRE(
      harness.broker().grant("s-once", {"127.0.0.1", errand::sdk::GrantSpan::always, {}, "owner"}));
  BrokerClient client(s.socket_path);
  client.send(connect_request("127.0.0.1:25", s.proxy_credential));
  CHECK(client.read_response().status == 403);
}

TEST_CASE_METHOD(ProxyFixture, "grants are read back when a session's broker opens again",
                 "[proxy][integration][grants]") {
  BrokerHarness harness(config(loopback, {}), options());
  harness.open("s-reopen");
  REQUIRE(
      harness.broker().grant("s-reopen", {"127.0.0.1", errand::sdk::GrantSpan::always, {}, "op"}));
  harness.close("s-reopen");
  const auto s = harness.open("s-reopen");
  BrokerClient client(s.socket_path);
  client.send(connect_request(fmt::format("127.0.0.1:{}", echo.port()), s.proxy_credential));
  REQUIRE(client.read_response(true).status == 200);
  CHECK(client.echo_through_tunnel("again") == "again");
}

TEST_CASE_METHOD(ProxyFixture,
                 "names that resolve to internal addresses outside allowInternal are never dialled",
                 "[proxy][integration]") {
  // A range is listed, but none of these names resolves into it.
  BrokerHarness harness(config({"127.0.0.2/32", "172.16.0.0/12"}, {"*"}), options());
  const auto s = harness.open("s-internal");
  for (const std::string host : {"internal.test", "private.test", "mapped.test", "fabric.test"}) {
    CAPTURE(host);
    const auto reply = connect_from(s, fmt::format("{}:{}", host, echo.port()));
    CHECK(reply.status == 403);
    CHECK(reply.body.find("not a public host") != std::string::npos);
  }
  CHECK(echo.accepted() == 0);
  CHECK(
      harness.log_contains("refused 403 at the address check: not a public host (internal.test "
                           "resolves only to 127.0.0.1 (a loopback address))"));
}

TEST_CASE_METHOD(ProxyFixture, "a loopback literal needs allowInternal", "[proxy][integration]") {
  BrokerHarness harness(config({}, {"*"}), options());
  const auto s = harness.open("s-literal");
  BrokerClient client(s.socket_path);
  client.send(connect_request(fmt::format("127.0.0.1:{}", echo.port()), s.proxy_credential));
  const auto reply = client.read_response();
  CHECK(reply.status == 403);
  CHECK(reply.body.find("not a public host: 127.0.0.1 is a loopback address") != std::string::npos);
  CHECK(reply.body.find("allowInternal") != std::string::npos);
  CHECK(echo.accepted() == 0);
}

TEST_CASE_METHOD(ProxyFixture, "lookups that fail or stall are answered 502 and 504",
                 "[proxy][integration]") {
  BrokerHarness harness(config(loopback, {"*"}), options());
  const auto s = harness.open("s-dns");
  {
    BrokerClient client(s.socket_path);
    client.send(connect_request(fmt::format("nowhere.test:{}", echo.port()), s.proxy_credential));
    const auto reply = client.read_response();
    CHECK(reply.status == 502);
    CHECK(reply.body.find("the name did not resolve") != std::string::npos);
  }
  CHECK(
      harness.log_contains("at the lookup: the name did not resolve (Name or service not known)"));
  const auto started = std::chrono::steady_clock::now();
  BrokerClient client(s.socket_path);
  client.send(connect_request(fmt::format("slow.test:{}", echo.port()), s.proxy_credential));
  const auto reply = client.read_response();
  const auto waited = std::chrono::steady_clock::now() - started;
  CHECK(reply.status == 504);
  CHECK(reply.body.find("did not resolve in time") != std::string::npos);
  CHECK(waited >= std::chrono::milliseconds(250));
  CHECK(waited < std::chrono::seconds(5));
  CHECK(harness.log_contains(fmt::format("slow.test:{} answered 504 at the lookup", echo.port())));
}

TEST_CASE_METHOD(ProxyFixture,
                 "a tunnel's lookup is asked for the session's owner, or the session itself",
                 "[proxy][integration]") {
  // The lookup lane bounds one person's sessions together by this name (lookup_pool.hpp).
  BrokerHarness harness(config(loopback, {"*"}), options());
  const auto alice = harness.try_open("s-alice", {}, "alice").value();
  const auto nobody = harness.open("s-nobody");
  for (const auto* session : {&alice, &nobody}) {
    BrokerClient client(session->socket_path);
    client.send(
        connect_request(fmt::format("internal.test:{}", echo.port()), session->proxy_credential));
    CHECK(client.read_response(true).status == 200);
  }
  CHECK(resolver->asked() == std::vector<std::string>{"internal.test", "internal.test"});
  CHECK(resolver->owners_asked() == std::vector<std::string>{"alice", "s-nobody"});
  CHECK(harness.log_contains("session s-alice: opened for account alice"));
  CHECK(harness.log_contains("session s-nobody: opened for account s-nobody"));
}

TEST_CASE_METHOD(ProxyFixture, "an upstream that refuses every dial is answered 502",
                 "[proxy][integration]") {
  BrokerHarness harness(config(loopback, {"*"}), options());
  const auto s = harness.open("s-dial");
  BrokerClient client(s.socket_path);
  client.send(connect_request(fmt::format("127.0.0.1:{}", dead_port), s.proxy_credential));
  const auto reply = client.read_response();
  CHECK(reply.status == 502);
  CHECK(reply.body.find("upstream unreachable") != std::string::npos);
  CHECK(harness.log_contains("answered 502 at the dial: upstream unreachable"));
}

TEST_CASE_METHOD(ProxyFixture, "plain http requests are rewritten to origin form",
                 "[proxy][integration]") {
  BrokerHarness harness(config(loopback, {"*"}), options());
  const auto s = harness.open("s-plain");
  BrokerClient client(s.socket_path);
  client.send(
      fmt::format("GET http://127.0.0.1:{}/files/a.txt?x=1 HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n"
                  "Proxy-Authorization: {}\r\nProxy-Connection: keep-alive\r\nConnection: "
                  "keep-alive, X-Drop\r\n"
                  "X-Drop: 1\r\nUser-Agent: test\r\n\r\n",
                  plain.port(), plain.port(), basic_auth(s.proxy_credential)));
  const auto reply = client.read_response();
  CHECK(reply.status == 200);
  CHECK(reply.body == "plain hello");
  CHECK(reply.header("X-Seen-Target") == "/files/a.txt?x=1");
  CHECK(reply.header("Keep-Alive").empty());
  CHECK(reply.header("Connection") == "close");
  CHECK(client.closed_by_broker());
  const auto seen = plain.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].target == "/files/a.txt?x=1");
  CHECK(seen[0].header("Connection") == "close");
  CHECK(seen[0].header("User-Agent") == "test");
  CHECK_FALSE(seen[0].has_header("Proxy-Authorization"));
  CHECK_FALSE(seen[0].has_header("Proxy-Connection"));
  CHECK_FALSE(seen[0].has_header("X-Drop"));
}

TEST_CASE_METHOD(ProxyFixture, "plain http is held to the credential, ports and allowlist",
                 "[proxy][integration]") {
  BrokerHarness harness(config(loopback, {"only.test"}), options());
  const auto s = harness.open("s-plain-rules");
  BrokerClient a(s.socket_path);
  a.send(fmt::format("GET http://127.0.0.1:{}/ HTTP/1.1\r\nHost: x\r\n\r\n", plain.port()));
  CHECK(a.read_response().status == 407);
  BrokerClient b(s.socket_path);
  b.send(
      fmt::format("GET http://127.0.0.1:{}/ HTTP/1.1\r\nHost: x\r\nProxy-Authorization: {}\r\n\r\n",
                  plain.port(), basic_auth(s.proxy_credential)));
  CHECK(b.read_response().status == 403);
  CHECK(plain.requests().empty());
}

TEST_CASE_METHOD(ProxyFixture,
                 "a closed session's credential is refused on a connection opened "
                 "before, and an open tunnel is not cut",
                 "[proxy][integration]") {
  BrokerHarness harness(config(loopback, {"*"}), options());
  const auto s = harness.open("s-close");
  CHECK(harness.secrets().holds(s.proxy_credential));
  BrokerClient tunnel(s.socket_path);
  tunnel.send(connect_request(fmt::format("127.0.0.1:{}", echo.port()), s.proxy_credential));
  REQUIRE(tunnel.read_response(true).status == 200);

  BrokerClient keep(s.socket_path);
  keep.send(connect_request("127.0.0.1:22", s.proxy_credential));
  const auto first = keep.read_response();
  REQUIRE(first.status == 403);
  REQUIRE(first.header("Connection") == "keep-alive");

  struct stat st {};
  REQUIRE(::stat(s.socket_path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  harness.close("s-close");
  CHECK_FALSE(std::filesystem::exists(s.socket_path));
  CHECK_FALSE(harness.secrets().holds(s.proxy_credential));

  keep.send(connect_request(fmt::format("127.0.0.1:{}", echo.port()), s.proxy_credential));
  CHECK(keep.read_response().status == 407);
  CHECK(harness.log_contains("session s-close: CONNECT 127.0.0.1:" + std::to_string(echo.port()) +
                             " refused 407: the session's broker has closed"));
  CHECK(tunnel.echo_through_tunnel("still open") == "still open");
  CHECK_THROWS(BrokerClient(s.socket_path));
}

TEST_CASE_METHOD(ProxyFixture, "open registers every minted value with the secrets",
                 "[proxy][integration]") {
  auto c = config(loopback, {"*"});
  c["agent"].as_object()["providers"] = boost::json::object{
      {"anthropic", {{"credential", "sk-ant-0123456789"}, {"kind", "anthropic"}}},
      {"local", {{"credential", "k-local-9876543"}, {"baseUrl", "https://llm.example.com"}}}};
  BrokerHarness harness(std::move(c), options());
  const auto s = harness.open("s-secrets");
  REQUIRE(s.stand_ins.size() == 2);
  CHECK(s.stand_ins.at("anthropic").credential_name == "ANTHROPIC_API_KEY");
  CHECK(s.stand_ins.at("local").credential_name == "LOCAL_API_KEY");
  CHECK(s.stand_ins.at("anthropic").value != s.stand_ins.at("local").value);
  for (const auto& [name, stand_in] : s.stand_ins) CHECK(harness.secrets().holds(stand_in.value));
  CHECK(s.socket_path == harness.state_dir() / "brokers" / "s-secrets.sock");
  harness.close("s-secrets");
  for (const auto& [name, stand_in] : s.stand_ins)
    CHECK_FALSE(harness.secrets().holds(stand_in.value));
}

TEST_CASE_METHOD(ProxyFixture, "a socket inside a session's state directory is refused",
                 "[proxy][integration]") {
  BrokerHarness harness(config(loopback, {"*"}), options());
  const auto inside =
      harness.try_open("s-in", harness.state_dir() / "sessions" / "s-in" / "b.sock");
  REQUIRE_FALSE(inside);
  CHECK(inside.error().message.find("inside a session's writable state") != std::string::npos);
  const auto too_long = harness.try_open("s-long", harness.state_dir() / std::string(120, 'x'));
  REQUIRE_FALSE(too_long);
  CHECK(too_long.error().message.find("longer than") != std::string::npos);
  REQUIRE(harness.try_open("ok-one"));
  const auto again = harness.try_open("ok-one");
  REQUIRE_FALSE(again);
  CHECK(again.error().message.find("already has an open broker") != std::string::npos);
}

TEST_CASE_METHOD(ProxyFixture, "allowInternal admits the ranges it lists, literal or name",
                 "[proxy][integration][internal]") {
  resolver->map("mirror.test", {"127.0.0.1"});
  BrokerHarness harness(config(loopback, {"*"}), options());
  const auto s = harness.open("s-ranges");
  {
    BrokerClient client(s.socket_path);
    client.send(connect_request(fmt::format("mirror.test:{}", echo.port()), s.proxy_credential));
    REQUIRE(client.read_response(true).status == 200);
    CHECK(client.echo_through_tunnel("lan") == "lan");
  }
  CHECK(harness.log_contains(
      "tunnel to 127.0.0.1 (internal, listed by sandbox.egress.allowInternal entry "
      "\"127.0.0.1/32\") open"));
  BrokerClient unlisted(s.socket_path);
  unlisted.send(connect_request(fmt::format("127.0.0.2:{}", echo.port()), s.proxy_credential));
  const auto reply = unlisted.read_response();
  CHECK(reply.status == 403);
  CHECK(reply.body.find("The operator can list its range in sandbox.egress.allowInternal") !=
        std::string::npos);
  CHECK(echo.accepted() == 1);
}

TEST_CASE_METHOD(ProxyFixture, "metadata, link-local and fabric addresses are never lifted",
                 "[proxy][integration][internal]") {
  resolver->map("metadata.test", {"169.254.169.254"});
  BrokerHarness harness(config({"0.0.0.0/0", "::/0"}, {"*"}), options());
  const auto s = harness.open("s-never");
  for (const std::string target :
       {"169.254.169.254", "168.63.129.16", "[fd00:ec2::254]", "169.254.10.1", "[fe80::1]",
        "[::ffff:169.254.169.254]", "metadata.test", "fabric.test"}) {
    CAPTURE(target);
    const auto reply = connect_from(s, fmt::format("{}:{}", target, echo.port()));
    CHECK(reply.status == 403);
    CHECK(reply.body.find("not a public host") != std::string::npos);
    CHECK(reply.body.find("allowInternal") == std::string::npos);
  }
  CHECK(harness.log_contains("169.254.169.254 is a cloud metadata address (169.254.169.254)"));
  CHECK(harness.log_contains("fd00:ec2::254 is a cloud metadata address (fd00:ec2::254)"));
  // The same ranges do let loopback through, so the refusals above are the rule, not the port.
  BrokerClient loop(s.socket_path);
  loop.send(connect_request(fmt::format("127.0.0.1:{}", echo.port()), s.proxy_credential));
  CHECK(loop.read_response(true).status == 200);
}

TEST_CASE_METHOD(ProxyFixture, "a CONNECT to one of the host's own addresses is refused",
                 "[proxy][integration][internal]") {
  // The interface list is injected: a public address this host carries, and a private one
  // inside a listed range. Neither is ever dialled.
  auto o = options();
  o.interface_addresses = [] {
    return std::vector<boost::asio::ip::address>{boost::asio::ip::make_address("127.0.0.1"),
                                                 boost::asio::ip::make_address("93.184.216.34"),
                                                 boost::asio::ip::make_address("10.20.30.40")};
  };
  resolver->map("self.test", {"93.184.216.34"});
  BrokerHarness harness(config({"10.0.0.0/8"}, {"*"}), std::move(o));
  const auto s = harness.open("s-self");
  for (const std::string target : {"93.184.216.34", "10.20.30.40", "self.test"}) {
    CAPTURE(target);
    const auto reply = connect_from(s, fmt::format("{}:{}", target, echo.port()));
    CHECK(reply.status == 403);
    CHECK(reply.body.find("not a public host") != std::string::npos);
    CHECK(reply.body.find("an address of this host's own interfaces") != std::string::npos);
  }
  CHECK(
      harness.log_contains("refused 403 at the address check: not a public host (93.184.216.34 "
                           "is an address of this host's own interfaces)"));
}

// The inner half of the case below, run where getifaddrs reports the test's own interface.
TEST_CASE_METHOD(ProxyFixture,
                 "own network: a CONNECT to each address getifaddrs reports is refused",
                 "[.own-network]") {
  // The real interface list, with every range listed so only the host rule stands in the way.
  std::vector<std::string> own;
  for (const auto& address : interface_addresses()) {
    if (errand::common::plain_address(address).is_loopback() || judge_address(address).never_lifted)
      continue;
    own.push_back(address.is_v6() ? "[" + address.to_string() + "]" : address.to_string());
  }
  const auto carried = [&](const std::string& target) {
    return std::find(own.begin(), own.end(), target) != own.end();
  };
  REQUIRE(carried(errand::test::kOwnAddressV4));
  REQUIRE(carried("[" + std::string(errand::test::kOwnAddressV6) + "]"));
  BrokerHarness harness(config({"0.0.0.0/0", "::/0"}, {"*"}), options());
  const auto s = harness.open("s-own");
  for (const auto& target : own) {
    CAPTURE(target);
    const auto reply = connect_from(s, fmt::format("{}:{}", target, echo.port()));
    CHECK(reply.status == 403);
    CHECK(reply.body.find("an address of this host's own interfaces") != std::string::npos);
  }
}

TEST_CASE("a CONNECT to an address getifaddrs reports is refused",
          "[proxy][integration][internal][own_network]") {
  // In a network of the test's own, so a loopback-only host checks the rule too.
  errand::test::check_passes_in_own_network(
      "own network: a CONNECT to each address getifaddrs reports is refused");
}
