#pragma once

// The TLS client side every https:// and wss:// connection errand makes shares: which
// authorities are trusted, which name the peer's certificate must carry, and the sentence that
// says why a handshake was refused.

#include <openssl/ssl.h>

#include <boost/asio/ssl/context.hpp>
#include <boost/system/error_code.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <string>

namespace errand::common {

struct TrustStore {
  // The PEM certificates trusted instead of the system's store; empty: the system's store.
  std::filesystem::path ca_file;
  // The setting that names ca_file ("chat.caFile"), so a refusal says what to change; empty
  // when there is no such setting.
  std::string ca_file_key;
  // PEM certificates trusted besides the store chosen above (a test's private authority).
  std::string extra_ca_pem;
};

// Sets ctx up as a client that verifies its peer against trust, with TLS 1.2 at least. A
// refusal names the file or the store and what to do.
sdk::Result<void> configure_client_tls(boost::asio::ssl::context& ctx, const TrustStore& trust);

// With no SSL_CERT_FILE or SSL_CERT_DIR set and OpenSSL's default certificate directory
// hashed (every system authority under its subject's hash, as update-ca-certificates leaves
// it), makes ctx trust the system's store by looking authorities up there when a handshake
// needs one, rather than parsing them all now; false, with ctx unchanged, otherwise.
// configure_client_tls uses it for the system's store and loads it whole when it says false.
bool trusts_system_store_lazily(SSL_CTX* ctx);

// configure_client_tls on a new context.
sdk::Result<std::shared_ptr<boost::asio::ssl::context>> make_client_tls_context(
    const TrustStore& trust);

// Whom a connection is meant to reach, as the URL gave it.
struct TlsPeer {
  std::string host;  // a name, or an address (IPv6 without brackets)
  std::string port;
  bool host_is_address = false;
};

// Before the handshake: sends the host as SNI when it is a name (an address is no server name)
// and has OpenSSL check that the certificate names that host, or carries that address.
sdk::Result<void> expect_peer(SSL* ssl, const TlsPeer& peer);

// Why a handshake on ssl failed with ec. ca_file_key is TrustStore::ca_file_key.
struct TlsRefusal {
  // True when the certificate was refused, which retrying cannot change.
  bool verification = false;
  // Why, without saying where: "it does not name ... (host name mismatch), ...".
  std::string reason;
  // The whole sentence, naming host:port.
  std::string sentence;
};
TlsRefusal describe_tls_failure(SSL* ssl, const TlsPeer& peer, const boost::system::error_code& ec,
                                std::string_view ca_file_key);

}  // namespace errand::common
