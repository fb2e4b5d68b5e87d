#include "tests/fakes/upstream/test_ca.hpp"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <fstream>
#include <memory>
#include <stdexcept>

namespace errand::fakes {
namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Free>;
using Cert = std::unique_ptr<X509, Free>;

[[noreturn]] void fail(const std::string& step) {
  char buf[256];
  ERR_error_string_n(ERR_get_error(), buf, sizeof buf);
  throw std::runtime_error("test CA: " + step + ": " + buf);
}

Key new_key() {
  Key key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) fail("generating a P-256 key");
  return key;
}

void add_extension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  std::unique_ptr<X509_EXTENSION, Free> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1)
    fail(std::string("adding extension ") + value);
}

Cert new_cert(EVP_PKEY* key, const std::string& common_name, long serial) {
  Cert cert(X509_new());
  if (!cert) fail("allocating a certificate");
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 7L * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  return cert;
}

// The PEM text of cert, or of key when cert is null.
std::string pem_of(X509* cert, EVP_PKEY* key) {
  std::unique_ptr<BIO, Free> bio(BIO_new(BIO_s_mem()));
  if (!bio) fail("allocating a memory BIO");
  const bool ok =
      cert ? PEM_write_bio_X509(bio.get(), cert) == 1
           : PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) == 1;
  if (!ok) fail(cert ? "writing a certificate as PEM" : "writing a key as PEM");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("test CA: cannot write " + path.string());
}

}  // namespace

TestCertificates make_test_certificates(const std::string& ca_name,
                                        const std::string& server_names) {
  const Key ca_key = new_key();
  const Cert ca = new_cert(ca_key.get(), ca_name, 1);
  X509_set_issuer_name(ca.get(), X509_get_subject_name(ca.get()));
  add_extension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_extension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
  add_extension(ca.get(), ca.get(), NID_subject_key_identifier, "hash");
  if (X509_sign(ca.get(), ca_key.get(), EVP_sha256()) == 0) fail("signing the CA");

  const Key server_key = new_key();
  const Cert server = new_cert(server_key.get(), "localhost", 2);
  X509_set_issuer_name(server.get(), X509_get_subject_name(ca.get()));
  add_extension(server.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_extension(server.get(), ca.get(), NID_key_usage, "critical,digitalSignature");
  add_extension(server.get(), ca.get(), NID_ext_key_usage, "serverAuth");
  add_extension(server.get(), ca.get(), NID_subject_alt_name, server_names.c_str());
  if (X509_sign(server.get(), ca_key.get(), EVP_sha256()) == 0)
    fail("signing the server certificate");

  return {pem_of(ca.get(), nullptr), pem_of(server.get(), nullptr),
          pem_of(nullptr, server_key.get())};
}

TestCa make_test_ca(const std::filesystem::path& dir, const std::string& ca_name,
                    const std::string& server_names) {
  const auto made = make_test_certificates(ca_name, server_names);
  std::filesystem::create_directories(dir);
  TestCa out{dir / "ca.pem", dir / "server.pem", dir / "server.key"};
  write_file(out.ca_cert, made.ca_pem);
  write_file(out.server_cert, made.server_certificate_pem);
  write_file(out.server_key, made.server_key_pem);
  return out;
}

}  // namespace errand::fakes
