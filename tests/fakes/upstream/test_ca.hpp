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

// Throws std::runtime_error with OpenSSL's reason when a step fails. server_names is the
// server certificate's subjectAltName in OpenSSL's notation; a test of host-name checking
// gives names the client does not connect to.
TestCa make_test_ca(const std::filesystem::path& dir, const std::string& ca_name = "errand test CA",
                    const std::string& server_names = "DNS:localhost,IP:127.0.0.1,IP:::1");

}  // namespace errand::fakes
