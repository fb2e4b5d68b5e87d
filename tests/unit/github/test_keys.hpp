#pragma once

// Test files for the App key checks: an EC key GitHub would not take (an App's RSA key is
// fakes::make_test_app_key), and a file written with an exact mode.

#include <filesystem>
#include <string>

namespace errand::github::testing {

// A P-256 private key as PEM.
std::string make_ec_key_pem();

// Writes text to path with the given mode (the mode set after the write, whatever the umask).
void write_with_mode(const std::filesystem::path& path, const std::string& text, int mode);

}  // namespace errand::github::testing
