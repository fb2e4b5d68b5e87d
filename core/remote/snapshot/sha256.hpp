#pragma once

// SHA-256 as remote-run names content: 64 lowercase hexadecimal digits. Blobs are stored and
// asked for under this name, and the manifest's own hash is one too.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <memory>
#include <string>
#include <string_view>

namespace errand::remote {

inline constexpr std::size_t kSha256HexLength = 64;

// True when text is 64 lowercase hexadecimal digits (the only spelling accepted on the wire, so
// one blob has one name).
bool is_sha256_hex(std::string_view text) noexcept;

std::string sha256_hex(std::string_view data);

struct ContentDigest {
  std::string sha256;
  std::uint64_t size = 0;  // the bytes hashed: what the file held while it was read
};

// The content of an open file from where it stands to its end, hashed as it is read and never
// held whole. An error is the system's reason alone ("Input/output error"): the caller knows
// which file it is and what reading it was for.
sdk::Result<ContentDigest> sha256_of_open_file(int fd);

// Hashing in pieces, for a blob that arrives in frames.
class Sha256 {
 public:
  Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  ~Sha256();
  void add(std::string_view data);
  // The hex digest of everything added; the object is spent afterwards.
  std::string finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace errand::remote
