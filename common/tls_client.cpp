#include "common/tls_client.hpp"

#include "common/hex_digit.hpp"

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <fmt/format.h>
#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <cstdlib>
#include <string_view>

namespace errand::common {

namespace ssl = boost::asio::ssl;

namespace {

std::string openssl_reason() {
  const unsigned long code = ::ERR_get_error();
  if (code == 0) return "OpenSSL gave no reason";
  char text[256];
  ::ERR_error_string_n(code, text, sizeof text);
  return text;
}

// A name as `openssl rehash` gives a certificate's link: its subject's hash and a sequence number.
bool is_hash_link(std::string_view name) {
  constexpr std::size_t kHashDigits = 8;
  if (name.size() < kHashDigits + 2 || name[kHashDigits] != '.') return false;
  const auto hash = name.substr(0, kHashDigits);
  const auto sequence = name.substr(kHashDigits + 1);
  return std::all_of(hash.begin(), hash.end(), [](char c) { return hex_digit_value(c) >= 0; }) &&
         std::all_of(sequence.begin(), sequence.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The system's store as OpenSSL's defaults name it, unless SSL_CERT_FILE or SSL_CERT_DIR
// point elsewhere: then the defaults are followed as they are.
bool system_directory_is_hashed() {
  if (std::getenv(X509_get_default_cert_file_env()) != nullptr ||
      std::getenv(X509_get_default_cert_dir_env()) != nullptr)
    return false;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(X509_get_default_cert_dir(), ec), end;
       !ec && it != end; it.increment(ec))
    if (is_hash_link(it->path().filename().string())) return true;
  return false;
}

}  // namespace

bool trusts_system_store_lazily(SSL_CTX* ctx) {
  // Every certificate the system trusts, parsed up front, held some 850 KiB per TLS context,
  // and the daemon has one in the Discord plugin and one in the broker. update-ca-certificates
  // leaves each of them in the default directory under its subject's hash too, so the store
  // looks them up there instead, one at a time as a handshake needs an issuer, and holds only
  // those. The authorities trusted are the same; only when they are read changes.
  if (!system_directory_is_hashed()) return false;
  return SSL_CTX_load_verify_dir(ctx, X509_get_default_cert_dir()) == 1;
}

sdk::Result<void> configure_client_tls(ssl::context& ctx, const TrustStore& trust) {
  ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                  ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  boost::system::error_code ec;
  if (trust.ca_file.empty()) {
    if (!trusts_system_store_lazily(ctx.native_handle())) ctx.set_default_verify_paths(ec);
    if (ec)
      return sdk::make_error(
          fmt::format("the system's certificate store could not be loaded: {}; install "
                      "ca-certificates{}",
                      ec.message(),
                      trust.ca_file_key.empty() ? "" : " or set " + trust.ca_file_key),
          sdk::Error::Kind::unavailable);
  } else {
    std::error_code exists;
    if (!std::filesystem::is_regular_file(trust.ca_file, exists))
      return sdk::make_error(fmt::format("the certificate file {} is not a readable file; give the "
                                         "PEM file of the authority that signed the server's "
                                         "certificate",
                                         trust.ca_file.string()),
                             sdk::Error::Kind::refused);
    ctx.load_verify_file(trust.ca_file.string(), ec);
    if (ec)
      return sdk::make_error(
          fmt::format(
              "the certificate file {} could not be read as PEM certificates ({}); give the "
              "PEM file of the authority that signed the server's certificate",
              trust.ca_file.string(), ec.message()),
          sdk::Error::Kind::refused);
  }
  if (!trust.extra_ca_pem.empty()) {
    ctx.add_certificate_authority(boost::asio::buffer(trust.extra_ca_pem), ec);
    if (ec)
      return sdk::make_error(
          "a certificate authority to trust could not be read as PEM (" + ec.message() + ")",
          sdk::Error::Kind::refused);
  }
  ctx.set_verify_mode(ssl::verify_peer);
  return {};
}

sdk::Result<std::shared_ptr<ssl::context>> make_client_tls_context(const TrustStore& trust) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  if (auto configured = configure_client_tls(*ctx, trust); !configured) return configured.error();
  return ctx;
}

sdk::Result<void> expect_peer(SSL* ssl, const TlsPeer& peer) {
  auto* param = SSL_get0_param(ssl);
  bool ok = true;
  if (peer.host_is_address) {
    ok = X509_VERIFY_PARAM_set1_ip_asc(param, peer.host.c_str()) == 1;
  } else {
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    ok = SSL_set_tlsext_host_name(ssl, peer.host.c_str()) == 1 &&
         X509_VERIFY_PARAM_set1_host(param, peer.host.c_str(), peer.host.size()) == 1;
  }
  if (!ok)
    return sdk::make_error(
        fmt::format("the TLS connection to {}:{} could not be told which name to expect: {}",
                    peer.host, peer.port, openssl_reason()));
  return {};
}

TlsRefusal describe_tls_failure(SSL* ssl, const TlsPeer& peer, const boost::system::error_code& ec,
                                std::string_view ca_file_key) {
  const auto where = peer.host + ":" + peer.port;
  const long verdict = SSL_get_verify_result(ssl);
  TlsRefusal refusal;
  if (verdict == X509_V_ERR_HOSTNAME_MISMATCH || verdict == X509_V_ERR_IP_ADDRESS_MISMATCH) {
    refusal.verification = true;
    refusal.reason = fmt::format(
        "it does not name {} (host name mismatch), so it is not the server the URL names",
        peer.host);
  } else if (verdict != X509_V_OK) {
    refusal.verification = true;
    refusal.reason = fmt::format(
        "it is not trusted ({}); it must chain to an authority in the "
        "system's store",
        X509_verify_cert_error_string(verdict));
    if (!ca_file_key.empty())
      refusal.reason += fmt::format(", or in {} for a private one", ca_file_key);
  }
  if (refusal.verification) {
    refusal.sentence =
        fmt::format("the TLS certificate of {} was refused: {}", where, refusal.reason);
  } else {
    refusal.reason = ec.message();
    refusal.sentence = fmt::format("the TLS handshake with {} failed: {}", where, refusal.reason);
  }
  return refusal;
}

}  // namespace errand::common
