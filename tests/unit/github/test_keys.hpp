#pragma once

// Keys made for a test with OpenSSL, written as PEM: an App's RSA key, and an EC key GitHub
// would not take.

#include <filesystem>
#include <string>

namespace errand::github::testing {

struct TestKey {
  std::string private_pem, public_pem;
};

TestKey make_rsa_key(int bits = 2048);
TestKey make_ec_key();

// Writes text to path with the given mode (the mode set after the write, whatever the umask).
void write_with_mode(const std::filesystem::path& path, const std::string& text, int mode);

}  // namespace errand::github::testing
