#include "core/github/app_private_key.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <sys/stat.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>

#include "core/config/read_text_file.hpp"

namespace errand::github {

namespace {

sdk::Error refused(const std::filesystem::path& path, std::string_view why) {
  return sdk::make_error(fmt::format("the GitHub App key {} {}", path.string(), why),
                         sdk::Error::Kind::refused);
}

}  // namespace

sdk::Result<AppKey> load_app_key(const std::filesystem::path& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) {
    if (errno == ENOENT)
      return refused(path,
                     "does not exist; download the App's private key from its settings "
                     "page and put it there, or correct github.app.privateKeyPath");
    return refused(path, fmt::format("cannot be examined ({}); let the daemon's account reach it",
                                     std::strerror(errno)));
  }
  if (!S_ISREG(status.st_mode)) return refused(path, "is not a regular file; name the .pem file");
  if ((status.st_mode & 077) != 0)
    return refused(path, fmt::format("can be read by others than its owner (mode {:04o}), so "
                                     "anyone on this host could sign in as the App; run "
                                     "chmod 600 {}",
                                     status.st_mode & 07777, path.string()));
  const auto text = config::read_text_file(path);
  if (!text)
    return sdk::make_error(text.error().message + "; let the daemon's account read the App key",
                           sdk::Error::Kind::refused);
  std::unique_ptr<BIO, decltype(&BIO_free)> in(
      BIO_new_mem_buf(text->data(), static_cast<int>(text->size())), &BIO_free);
  // No passphrase: OpenSSL would otherwise ask for one on the daemon's terminal.
  pem_password_cb* no_passphrase = [](char*, int, int, void*) { return 0; };
  std::unique_ptr<EVP_PKEY, KeyRelease> key(
      PEM_read_bio_PrivateKey(in.get(), nullptr, no_passphrase, nullptr));
  ERR_clear_error();
  if (!key)
    return refused(path,
                   "holds no PEM private key; use the .pem file GitHub generated for the "
                   "App, unchanged");
  if (EVP_PKEY_base_id(key.get()) != EVP_PKEY_RSA)
    return refused(path,
                   "holds a key that is not RSA, and GitHub signs Apps in with RSA keys "
                   "only; generate a private key on the App's settings page");
  return AppKey(std::move(key));
}

}  // namespace errand::github
