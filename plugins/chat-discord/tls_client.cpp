#include "plugins/chat-discord/tls_client.hpp"

#include "common/tls_client.hpp"

#include <boost/asio/error.hpp>

namespace errand::discord {

namespace {

constexpr std::string_view kCaFileKey = "chat.caFile";

common::TlsPeer peer_of(const Endpoint& endpoint) {
  return {endpoint.host, endpoint.port, endpoint.host_is_address};
}

}  // namespace

sdk::Result<std::shared_ptr<boost::asio::ssl::context>> make_client_tls_context(
    const std::string& ca_file) {
  return common::make_client_tls_context({ca_file, std::string(kCaFileKey), {}});
}

void expect_peer(SSL* ssl, const Endpoint& endpoint) {
  if (auto expected = common::expect_peer(ssl, peer_of(endpoint)); !expected)
    throw TlsFailure(boost::asio::error::invalid_argument, expected.error().message, false);
}

TlsFailure tls_failure(SSL* ssl, const Endpoint& endpoint, const boost::system::error_code& ec) {
  auto refusal = common::describe_tls_failure(ssl, peer_of(endpoint), ec, kCaFileKey);
  return TlsFailure(ec, std::move(refusal.sentence), refusal.verification);
}

std::string connection_failure_text(const boost::system::system_error& e) {
  if (const auto* tls = dynamic_cast<const TlsFailure*>(&e)) return tls->sentence();
  return e.code().message();
}

}  // namespace errand::discord
