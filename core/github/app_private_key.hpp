#pragma once

// A GitHub App's private key, read from the file github.app.privateKeyPath names. The key signs
// every installation token's request, so a file others may read, or a key GitHub would not
// accept (anything but RSA), is refused before any session is tried.

#include <openssl/evp.h>

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>

namespace errand::github {

struct KeyRelease {
  void operator()(EVP_PKEY* key) const noexcept { EVP_PKEY_free(key); }
};

class AppKey {
 public:
  explicit AppKey(std::unique_ptr<EVP_PKEY, KeyRelease> key) : key_(std::move(key)) {}
  EVP_PKEY* get() const noexcept { return key_.get(); }

 private:
  std::unique_ptr<EVP_PKEY, KeyRelease> key_;
};

// The key, or a sentence naming the file and what to do: missing, unreadable, readable by its
// group or by others (mode & 077), not PEM, or not an RSA private key.
sdk::Result<AppKey> load_app_key(const std::filesystem::path& path);

}  // namespace errand::github
