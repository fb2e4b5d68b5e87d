#pragma once

// A certificate authority made fresh for one test run, and a server certificate it signed for
// 127.0.0.1, ::1 and localhost, written as PEM files into a directory.

#include <filesystem>
#include <string>

namespace errand::fakes {

struct TestCa {
  std::filesystem::path ca_cert;      // trust this
  std::filesystem::path server_cert;  // serve these
  std::filesystem::path server_key;
};

// Throws std::runtime_error with OpenSSL's reason when a step fails.
TestCa make_test_ca(const std::filesystem::path& dir,
                    const std::string& ca_name = "errand test CA");

}  // namespace errand::fakes
