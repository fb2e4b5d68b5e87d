#pragma once

// TLS for every https:// and wss:// connection the plugin makes: the trust store, the name the
// server's certificate must carry, and a sentence that says why a handshake was refused.

#include <openssl/ssl.h>

#include <boost/asio/ssl/context.hpp>
#include <boost/system/system_error.hpp>
#include <errand/sdk/result.hpp>
#include <memory>
#include <string>

#include "plugins/chat-discord/service_url.hpp"

namespace errand::discord {

// A client context that verifies the peer's certificate: against the system's trust store, or,
// when ca_file is not empty, against the PEM certificates in it instead (chat.caFile).
sdk::Result<std::shared_ptr<boost::asio::ssl::context>> make_client_tls_context(
    const std::string& ca_file);

// Before the handshake: sends the host as SNI (a name only; an address is no server name) and
// has OpenSSL check that the certificate names the host, or carries the address, that the URL
// gave. Throws boost::system::system_error when OpenSSL refuses the settings.
void expect_peer(SSL* ssl, const Endpoint& endpoint);

// A handshake that failed. The message says which of the two refusals it was (the certificate
// names another host, or it does not chain to a trusted authority) or what else broke.
class TlsFailure : public boost::system::system_error {
 public:
  TlsFailure(const boost::system::error_code& ec, std::string sentence, bool verification)
      : boost::system::system_error(ec),
        sentence_(std::move(sentence)),
        verification_(verification) {}
  const std::string& sentence() const noexcept { return sentence_; }
  // True when the certificate was refused, which retrying cannot change.
  bool verification() const noexcept { return verification_; }

 private:
  std::string sentence_;
  bool verification_;
};

// Builds the TlsFailure for a handshake on ssl that failed with ec.
TlsFailure tls_failure(SSL* ssl, const Endpoint& endpoint, const boost::system::error_code& ec);

// The sentence for a failed connection: a TlsFailure's own, else the error's message.
std::string connection_failure_text(const boost::system::system_error& e);

}  // namespace errand::discord
