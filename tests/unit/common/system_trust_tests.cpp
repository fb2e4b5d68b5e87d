// The system's store behind every client TLS context: read from OpenSSL's hashed default
// directory one authority at a time, as verification asks for an issuer, rather than parsed
// whole into each context (which held some 850 KiB per context); and loaded whole, as
// OpenSSL's defaults say, when SSL_CERT_FILE names a bundle or the directory is not hashed.

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <boost/asio/ssl/context.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/tls_client.hpp"
#include "tests/fakes/upstream/test_ca.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/support/temp_dir.hpp"

namespace ssl = boost::asio::ssl;

namespace {

// Sets or unsets one environment variable for a test's length, then puts it back.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* before = std::getenv(name)) before_ = before;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedVariable() {
    if (before_) {
      ::setenv(name_, before_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* name_;
  std::optional<std::string> before_;
};

using X509Ptr = std::unique_ptr<X509, decltype(&X509_free)>;

// Every certificate of a PEM bundle.
std::vector<X509Ptr> read_bundle(const std::string& path) {
  std::vector<X509Ptr> certificates;
  std::unique_ptr<FILE, decltype(&std::fclose)> file(std::fopen(path.c_str(), "r"), &std::fclose);
  if (!file) return certificates;
  while (X509* certificate = PEM_read_X509(file.get(), nullptr, nullptr, nullptr))
    certificates.emplace_back(certificate, &X509_free);
  return certificates;
}

int parsed_in_store(ssl::context& context) {
  return sk_X509_OBJECT_num(
      X509_STORE_get0_objects(SSL_CTX_get_cert_store(context.native_handle())));
}

bool verifies(ssl::context& context, X509* certificate) {
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> check(X509_STORE_CTX_new(),
                                                                        &X509_STORE_CTX_free);
  REQUIRE(X509_STORE_CTX_init(check.get(), SSL_CTX_get_cert_store(context.native_handle()),
                              certificate, nullptr) == 1);
  return X509_verify_cert(check.get()) == 1;
}

// Whether OpenSSL's default directory holds certificate under its subject's hash.
bool hashed_in_default_directory(X509* certificate) {
  char hash[16];
  std::snprintf(hash, sizeof hash, "%08lx.0", X509_subject_name_hash(certificate));
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::path(X509_get_default_cert_dir()) / hash, ec);
}

}  // namespace

TEST_CASE("the system's store is read from its hashed directory as verification needs it") {
  const ScopedVariable no_file(X509_get_default_cert_file_env(), nullptr);
  const ScopedVariable no_dir(X509_get_default_cert_dir_env(), nullptr);
  const auto bundle = read_bundle(X509_get_default_cert_file());
  REQUIRE(bundle.size() > 10);

  ssl::context context(ssl::context::tls_client);
  REQUIRE(errand::common::configure_client_tls(context, {}));
  const bool hashed = hashed_in_default_directory(bundle.front().get());
  INFO("default directory " << X509_get_default_cert_dir() << " hashed: " << hashed);
  if (hashed) {
    // Nothing parsed up front; the first root is found in the directory when asked for.
    CHECK(parsed_in_store(context) == 0);
    CHECK(verifies(context, bundle.front().get()));
    CHECK(parsed_in_store(context) >= 1);
    CHECK(parsed_in_store(context) < static_cast<int>(bundle.size()) / 2);
  } else {
    // No directory to look in: the bundle is loaded whole, as before.
    CHECK(parsed_in_store(context) >= static_cast<int>(bundle.size()));
    CHECK(verifies(context, bundle.front().get()));
  }

  // An authority the system does not trust stays untrusted.
  const errand::test::TempDir dir;
  const auto private_ca = errand::fakes::make_test_ca(dir.path(), "errand system trust test CA");
  const auto own = read_bundle(private_ca.ca_cert.string());
  REQUIRE(own.size() == 1);
  CHECK_FALSE(verifies(context, own.front().get()));
}

TEST_CASE("a bundle named by SSL_CERT_FILE is loaded whole, as OpenSSL's defaults say") {
  const errand::test::TempDir dir;
  const auto private_ca = errand::fakes::make_test_ca(dir.path(), "errand bundle test CA");
  const ScopedVariable file(X509_get_default_cert_file_env(), private_ca.ca_cert.c_str());
  const ScopedVariable no_dir(X509_get_default_cert_dir_env(), nullptr);

  ssl::context context(ssl::context::tls_client);
  REQUIRE(errand::common::configure_client_tls(context, {}));
  CHECK(parsed_in_store(context) == 1);
  const auto own = read_bundle(private_ca.ca_cert.string());
  REQUIRE(own.size() == 1);
  CHECK(verifies(context, own.front().get()));
}
