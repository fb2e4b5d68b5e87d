#include "tests/fakes/github/fake_github.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <stdexcept>

namespace errand::fakes {
namespace {

struct Free {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
  void operator()(BIO* bio) const { BIO_free(bio); }
};

std::string drained(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(size));
}

}  // namespace

TestAppKey make_test_app_key(unsigned bits) {
  std::unique_ptr<EVP_PKEY, Free> key(
      EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", std::size_t{bits}));
  if (!key) throw std::runtime_error("fake GitHub: generating an RSA key failed");
  std::unique_ptr<BIO, Free> private_pem(BIO_new(BIO_s_mem()));
  std::unique_ptr<BIO, Free> public_pem(BIO_new(BIO_s_mem()));
  if (!private_pem || !public_pem ||
      PEM_write_bio_PrivateKey_traditional(private_pem.get(), key.get(), nullptr, nullptr, 0,
                                           nullptr, nullptr) != 1 ||
      PEM_write_bio_PUBKEY(public_pem.get(), key.get()) != 1)
    throw std::runtime_error("fake GitHub: writing the RSA key as PEM failed");
  return {drained(private_pem.get()), drained(public_pem.get())};
}

}  // namespace errand::fakes
