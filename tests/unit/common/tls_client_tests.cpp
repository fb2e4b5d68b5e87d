// The TLS client set-up against a real TLS server on loopback, with a CA made for the run: a
// certificate for the right name from a trusted authority is accepted; one for another name,
// or from an authority the client does not trust, is refused with a sentence that says which.

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <fstream>
#include <sstream>

#include "common/tls_client.hpp"
#include "tests/fakes/upstream/fake_upstream.hpp"
#include "tests/fakes/upstream/test_ca.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/support/temp_dir.hpp"

namespace asio = boost::asio;
using Catch::Matchers::ContainsSubstring;
using errand::common::TlsPeer;
using errand::common::TrustStore;
using errand::fakes::FakeUpstream;

namespace {

constexpr const char* kCaFileKey = "test.caFile";

// A loopback TLS server whose certificate a CA made for this test signed for server_names.
struct TlsServer {
  explicit TlsServer(const std::string& server_names)
      : ca(errand::fakes::make_test_ca(dir.path(), "errand common test CA", server_names)),
        server([](const auto&) { return errand::fakes::UpstreamReply{}; },
               FakeUpstream::Tls{ca.server_cert, ca.server_key}) {}
  TrustStore trusting_it() const { return {ca.ca_cert, kCaFileKey, {}}; }

  errand::test::TempDir dir;
  errand::fakes::TestCa ca;
  FakeUpstream server;
};

struct Handshake {
  boost::system::error_code ec;
  errand::common::TlsRefusal refusal;
};

// Connects to 127.0.0.1:port, expecting peer, and shakes hands with the given trust.
Handshake shake_hands(const TrustStore& trust, std::uint16_t port, const TlsPeer& peer) {
  auto context = errand::common::make_client_tls_context(trust);
  REQUIRE(context);
  asio::io_context io;
  asio::ssl::stream<asio::ip::tcp::socket> stream(io, **context);
  stream.next_layer().connect({asio::ip::make_address("127.0.0.1"), port});
  REQUIRE(errand::common::expect_peer(stream.native_handle(), peer));
  Handshake result;
  stream.handshake(asio::ssl::stream_base::client, result.ec);
  if (result.ec)
    result.refusal = errand::common::describe_tls_failure(stream.native_handle(), peer, result.ec,
                                                          trust.ca_file_key);
  return result;
}

TlsPeer loopback_address(std::uint16_t port) {
  return {"127.0.0.1", std::to_string(port), true};
}

}  // namespace

TEST_CASE("a certificate for the address, from the trusted CA, is accepted") {
  const TlsServer tls("DNS:localhost,IP:127.0.0.1");
  const auto port = tls.server.port();
  CHECK_FALSE(shake_hands(tls.trusting_it(), port, loopback_address(port)).ec);
  CHECK_FALSE(shake_hands(tls.trusting_it(), port, {"localhost", std::to_string(port), false}).ec);
}

TEST_CASE("a certificate that names another host is refused as a host name mismatch") {
  const TlsServer tls("DNS:elsewhere.example");
  const auto port = tls.server.port();
  const auto where = "127.0.0.1:" + std::to_string(port);

  SECTION("connecting to an address") {
    const auto result = shake_hands(tls.trusting_it(), port, loopback_address(port));
    REQUIRE(result.ec);
    CHECK(result.refusal.verification);
    CHECK(result.refusal.reason ==
          "it does not name 127.0.0.1 (host name mismatch), so it is not the server the URL "
          "names");
    CHECK(result.refusal.sentence ==
          "the TLS certificate of " + where + " was refused: " + result.refusal.reason);
  }
  SECTION("connecting to a name") {
    const auto result =
        shake_hands(tls.trusting_it(), port, {"localhost", std::to_string(port), false});
    REQUIRE(result.ec);
    CHECK(result.refusal.verification);
    CHECK_THAT(result.refusal.sentence,
               ContainsSubstring("does not name localhost (host name mismatch)"));
    CHECK_THAT(result.refusal.sentence, !ContainsSubstring("not trusted"));
  }
}

TEST_CASE("a certificate from an authority the client does not trust is refused as untrusted") {
  const TlsServer tls("IP:127.0.0.1");
  const errand::test::TempDir other_dir;
  const auto other = errand::fakes::make_test_ca(other_dir.path(), "another test CA");
  const auto port = tls.server.port();
  const auto result = shake_hands({other.ca_cert, kCaFileKey, {}}, port, loopback_address(port));
  REQUIRE(result.ec);
  CHECK(result.refusal.verification);
  CHECK_THAT(result.refusal.reason, ContainsSubstring("it is not trusted ("));
  CHECK_THAT(result.refusal.reason, ContainsSubstring("or in test.caFile for a private one"));
  CHECK_THAT(result.refusal.reason, !ContainsSubstring("host name mismatch"));
  CHECK_THAT(result.refusal.sentence,
             ContainsSubstring("the TLS certificate of 127.0.0.1:" + std::to_string(port) +
                               " was refused: it is not trusted"));
}

TEST_CASE("a CA given as PEM text is trusted besides the system's store") {
  const TlsServer tls("IP:127.0.0.1");
  std::ifstream file(tls.ca.ca_cert);
  std::stringstream pem;
  pem << file.rdbuf();
  const auto port = tls.server.port();
  const auto system_only = shake_hands({}, port, loopback_address(port));
  REQUIRE(system_only.ec);
  CHECK_THAT(system_only.refusal.reason, ContainsSubstring("it is not trusted ("));
  CHECK_THAT(system_only.refusal.reason, !ContainsSubstring("for a private one"));
  CHECK_FALSE(shake_hands({{}, "", pem.str()}, port, loopback_address(port)).ec);
}

TEST_CASE("a CA file that is missing or holds no certificate is refused, naming the file") {
  const errand::test::TempDir dir;
  const auto missing =
      errand::common::make_client_tls_context({dir / "absent.pem", kCaFileKey, {}});
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().message, ContainsSubstring((dir / "absent.pem").string()));
  CHECK_THAT(missing.error().message, ContainsSubstring("is not a readable file"));

  errand::test::write_file(dir / "notes.pem", "not a certificate\n");
  const auto not_pem = errand::common::make_client_tls_context({dir / "notes.pem", kCaFileKey, {}});
  REQUIRE_FALSE(not_pem);
  CHECK_THAT(not_pem.error().message, ContainsSubstring("could not be read as PEM certificates"));
}
