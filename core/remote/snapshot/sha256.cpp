#include "core/remote/snapshot/sha256.hpp"

#include <openssl/evp.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <new>

namespace errand::remote {

struct Sha256::State {
  EVP_MD_CTX* context = nullptr;
};

Sha256::Sha256() : state_(std::make_unique<State>()) {
  state_->context = EVP_MD_CTX_new();
  if (state_->context == nullptr) throw std::bad_alloc();
  if (EVP_DigestInit_ex(state_->context, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(state_->context);  // a constructor that throws runs no destructor
    throw std::bad_alloc();
  }
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(state_->context);
}

void Sha256::add(std::string_view data) {
  // EVP_DigestUpdate on an initialised SHA-256 context fails only on a null context.
  EVP_DigestUpdate(state_->context, data.data(), data.size());
}

std::string Sha256::finish() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(state_->context, digest.data(), &length);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xf];
  }
  return hex;
}

bool is_sha256_hex(std::string_view text) noexcept {
  if (text.size() != kSha256HexLength) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string sha256_hex(std::string_view data) {
  Sha256 hash;
  hash.add(data);
  return hash.finish();
}

sdk::Result<ContentDigest> sha256_of_open_file(int fd) {
  Sha256 hash;
  ContentDigest digest;
  std::array<char, 64 * 1024> buffer{};
  for (;;) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      return sdk::make_error(std::strerror(errno));
    }
    hash.add({buffer.data(), static_cast<std::size_t>(got)});
    digest.size += static_cast<std::uint64_t>(got);
  }
  digest.sha256 = hash.finish();
  return digest;
}

}  // namespace errand::remote
