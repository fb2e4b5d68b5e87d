#include "tests/unit/github/test_keys.hpp"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace errand::github::testing {

namespace {

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(length));
}

TestKey pem_of(EVP_PKEY* key) {
  if (key == nullptr) throw std::runtime_error("OpenSSL made no key");
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> owned(key, &EVP_PKEY_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> priv(BIO_new(BIO_s_mem()), &BIO_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> pub(BIO_new(BIO_s_mem()), &BIO_free);
  if (PEM_write_bio_PrivateKey(priv.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1 ||
      PEM_write_bio_PUBKEY(pub.get(), key) != 1)
    throw std::runtime_error("OpenSSL could not write the key as PEM");
  return {bio_text(priv.get()), bio_text(pub.get())};
}

}  // namespace

TestKey make_rsa_key(int bits) {
  return pem_of(EVP_RSA_gen(static_cast<unsigned>(bits)));
}

TestKey make_ec_key() {
  return pem_of(EVP_EC_gen("P-256"));
}

void write_with_mode(const std::filesystem::path& path, const std::string& text, int mode) {
  std::ofstream(path, std::ios::binary) << text;
  std::filesystem::permissions(path, static_cast<std::filesystem::perms>(mode),
                               std::filesystem::perm_options::replace);
}

}  // namespace errand::github::testing
