// The fake Discord over TLS (https REST, wss gateway, https attachments) with a CA made for the
// run, and the plugin verifying the certificate chain and the host name. A certificate for
// another host and one from an authority the plugin does not trust are refused, each with a
// sentence that says which.

#include <catch2/catch_test_macros.hpp>

#include "test_support.hpp"
#include "tests/fakes/upstream/test_ca.hpp"
#include "tests/support/temp_dir.hpp"

using namespace errand::discord;
using namespace errand::discord::testing;
using errand::sdk::ConnectionState;
namespace fd = errand::fake_discord;
namespace json = boost::json;

namespace {

constexpr const char* kEveryLoopbackName = "DNS:localhost,IP:127.0.0.1,IP:::1";

// A CA for this test and a server certificate it signed for server_names.
struct TestPki {
  explicit TestPki(const std::string& server_names = kEveryLoopbackName,
                   const std::string& ca_name = "errand discord test CA")
      : ca(errand::fakes::make_test_ca(dir.path(), ca_name, server_names)) {}

  fd::FakeOptions serving(fd::FakeOptions options = fast_fake()) const {
    options.tls = fd::FakeTls{ca.server_cert, ca.server_key};
    return options;
  }
  json::object trusted() const { return {{"caFile", ca.ca_cert.string()}}; }

  errand::test::TempDir dir;
  errand::fakes::TestCa ca;
};

std::size_t tls_resumes(const fd::FakeDiscord& fake) {
  return client_frames(fake, 6).size();
}

// The first disconnected state whose detail holds words, or an empty string.
std::string disconnect_saying(RecordingEvents& events, const std::string& words) {
  std::string found;
  events.wait([&](auto& e) {
    for (const auto& [state, detail] : e.states)
      if (state == ConnectionState::disconnected && detail.find(words) != std::string::npos) {
        found = detail;
        return true;
      }
    return false;
  });
  return found;
}

}  // namespace

TEST_CASE("over TLS: connect, REST, attachments and resume, with the certificate verified") {
  const TestPki pki;
  Harness h(pki.serving(), fast_tuning(), true, pki.trusted());
  REQUIRE(h.wait_ready());
  const auto port = std::to_string(h.fake.port());
  CHECK(h.fake.api_base() == "https://127.0.0.1:" + port + "/api/v10");
  // The URL GET /gateway/bot handed out, the shape Discord uses.
  CHECK(h.fake.gateway_url() == "wss://127.0.0.1:" + port);
  auto connections = h.fake.gateway_connections();
  REQUIRE(connections.size() == 1);
  CHECK(connections[0].request_line == "GET /?v=10&encoding=json HTTP/1.1");

  // REST over https.
  const auto channel = h.fake.options().channel_id;
  auto posted = h.run(h.transport->post(channel, {.text = "sent over TLS"}));
  REQUIRE(posted);
  const auto posts = requests_to(h.fake, "POST", "/channels/" + channel + "/messages");
  REQUIRE(posts.size() == 1);
  CHECK(posts[0].request_line == "POST /api/v10/channels/" + channel + "/messages HTTP/1.1");
  CHECK(h.fake.messages(channel).back().content == "sent over TLS");

  // An attachment over https, its signed query kept.
  h.fake.post_user_message(
      {.content = "a file", .attachments = {{"", "notes.txt", "text/plain", "attached bytes"}}});
  REQUIRE(h.events.wait([](auto& e) { return e.messages.size() == 1; }));
  const auto attachment = h.events.read([](auto& e) { return e.messages[0].attachments.at(0); });
  CHECK(attachment.url.rfind("https://127.0.0.1:" + port + "/attachments/", 0) == 0);
  auto bytes = h.run(h.transport->fetch_attachment(attachment, 1000));
  REQUIRE(bytes);
  CHECK(*bytes == "attached bytes");

  // Resume at resume_gateway_url, another port as on Discord, over wss as well.
  h.fake.request_reconnect();
  REQUIRE(fd::FakeDiscord::wait_until([&] { return tls_resumes(h.fake) == 1; }, 5s));
  REQUIRE(h.events.wait([](auto& e) {
    for (auto& [s, d] : e.states)
      if (s == ConnectionState::ready && d == "resumed") return true;
    return false;
  }));
  CHECK(h.fake.resume_url() == "wss://127.0.0.1:" + std::to_string(h.fake.resume_port()));
  connections = h.fake.gateway_connections();
  CHECK(connections.back().at_resume_url);
  CHECK(connections.back().request_line == "GET /?v=10&encoding=json HTTP/1.1");
}

TEST_CASE("a certificate that names another host is refused, saying the name does not match") {
  // Signed by the CA the plugin trusts, but for a name the URL does not give.
  const TestPki pki("DNS:discord.example");

  SECTION("REST over https") {
    Harness h(pki.serving(), fast_tuning(), true, pki.trusted());
    const auto detail = disconnect_saying(h.events, "host name mismatch");
    INFO(detail);
    CHECK(detail.find("does not name 127.0.0.1") != std::string::npos);
    CHECK(detail.find("not trusted") == std::string::npos);
    CHECK(h.fake.requests().empty());
  }
  SECTION("the gateway over wss") {
    fd::FakeDiscord gateway(pki.serving());
    auto chat = pki.trusted();
    chat["gatewayUrl"] = gateway.gateway_url();
    Harness h(fast_fake(), fast_tuning(), true, chat);
    const auto detail = disconnect_saying(h.events, "host name mismatch");
    INFO(detail);
    CHECK(detail.find("the gateway at " + gateway.gateway_url()) != std::string::npos);
    CHECK(detail.find("does not name 127.0.0.1") != std::string::npos);
    CHECK(gateway.gateway_connections().empty());
  }
}

TEST_CASE("a certificate from an authority the plugin does not trust is refused as untrusted",
          "[key:chat.caFile]") {
  const TestPki served;
  const TestPki other(kEveryLoopbackName, "another CA");

  SECTION("REST over https, with chat.caFile naming another CA") {
    Harness h(served.serving(), fast_tuning(), true, other.trusted());
    const auto detail = disconnect_saying(h.events, "not trusted");
    INFO(detail);
    CHECK(detail.find("unable to get local issuer certificate") != std::string::npos);
    CHECK(detail.find("mismatch") == std::string::npos);
    CHECK(h.fake.requests().empty());
  }
  SECTION("REST over https, with the system store (no chat.caFile)") {
    Harness h(served.serving(), fast_tuning(), true);
    const auto detail = disconnect_saying(h.events, "not trusted");
    INFO(detail);
    CHECK(detail.find("chat.caFile") != std::string::npos);
    CHECK(h.fake.requests().empty());
  }
  SECTION("the gateway over wss") {
    fd::FakeDiscord gateway(served.serving());
    auto chat = other.trusted();
    chat["gatewayUrl"] = gateway.gateway_url();
    // REST is plain loopback; only the gateway speaks TLS.
    Harness h(fast_fake(), fast_tuning(), true, chat);
    const auto detail = disconnect_saying(h.events, "not trusted");
    INFO(detail);
    CHECK(detail.find("the gateway at " + gateway.gateway_url()) != std::string::npos);
    CHECK(gateway.gateway_connections().empty());
  }
}

TEST_CASE("a transport with an unreadable chat.caFile refuses to start") {
  const errand::test::TempDir dir;
  errand::test::write_file(dir / "empty.pem", "");
  fd::FakeDiscord fake(fast_fake());
  errand::test::HostParts host;
  boost::asio::io_context io;
  const auto services = host.services(io.get_executor(), nullptr,
                                      config_for(fake, {{"caFile", (dir / "empty.pem").string()}}));
  try {
    DiscordTransport transport(services, fast_tuning());
    FAIL("the transport started with a chat.caFile holding no certificate");
  } catch (const std::exception& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("chat.caFile") != std::string::npos);
    CHECK(what.find("empty.pem") != std::string::npos);
  }
}
