#include "plugins/chat-discord/tls_client.hpp"

#include <openssl/x509v3.h>

#include <boost/asio/ssl/error.hpp>
#include <filesystem>

namespace errand::discord {

namespace asio = boost::asio;

sdk::Result<std::shared_ptr<asio::ssl::context>> make_client_tls_context(
    const std::string& ca_file) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                   asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                   asio::ssl::context::no_tlsv1_1);
  boost::system::error_code ec;
  if (ca_file.empty()) {
    ctx->set_default_verify_paths(ec);
    if (ec)
      return sdk::make_error("the system's certificate store could not be loaded: " + ec.message() +
                                 "; install ca-certificates or set chat.caFile",
                             sdk::Error::Kind::unavailable);
  } else {
    std::error_code exists;
    if (!std::filesystem::is_regular_file(ca_file, exists))
      return sdk::make_error("the certificate file " + ca_file +
                                 " is not a readable file; give the PEM file of the authority "
                                 "that signed the server's certificate",
                             sdk::Error::Kind::refused);
    ctx->load_verify_file(ca_file, ec);
    if (ec)
      return sdk::make_error("the certificate file " + ca_file +
                                 " could not be read as PEM certificates (" + ec.message() +
                                 "); give the PEM file of the authority that signed the "
                                 "server's certificate",
                             sdk::Error::Kind::refused);
  }
  ctx->set_verify_mode(asio::ssl::verify_peer);
  return ctx;
}

void expect_peer(SSL* ssl, const Endpoint& endpoint) {
  auto* param = SSL_get0_param(ssl);
  bool ok = true;
  if (endpoint.host_is_address) {
    ok = X509_VERIFY_PARAM_set1_ip_asc(param, endpoint.host.c_str()) == 1;
  } else {
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    ok = SSL_set_tlsext_host_name(ssl, endpoint.host.c_str()) == 1 &&
         X509_VERIFY_PARAM_set1_host(param, endpoint.host.c_str(), endpoint.host.size()) == 1;
  }
  if (!ok)
    throw boost::system::system_error(boost::system::error_code(static_cast<int>(::ERR_get_error()),
                                                                asio::error::get_ssl_category()));
}

TlsFailure tls_failure(SSL* ssl, const Endpoint& endpoint, const boost::system::error_code& ec) {
  const auto where = endpoint.host + ":" + endpoint.port;
  const long verdict = SSL_get_verify_result(ssl);
  if (verdict == X509_V_ERR_HOSTNAME_MISMATCH || verdict == X509_V_ERR_IP_ADDRESS_MISMATCH)
    return TlsFailure(ec,
                      "the TLS certificate of " + where + " was refused: it does not name " +
                          endpoint.host +
                          " (host name mismatch), so it is not the server the URL names",
                      true);
  if (verdict != X509_V_OK)
    return TlsFailure(ec,
                      "the TLS certificate of " + where + " was refused: it is not trusted (" +
                          X509_verify_cert_error_string(verdict) +
                          "); it must chain to an authority in the system's store, or in "
                          "chat.caFile for a private one",
                      true);
  return TlsFailure(ec, "the TLS handshake with " + where + " failed: " + ec.message(), false);
}

std::string connection_failure_text(const boost::system::system_error& e) {
  if (const auto* tls = dynamic_cast<const TlsFailure*>(&e)) return tls->sentence();
  return e.code().message();
}

}  // namespace errand::discord
