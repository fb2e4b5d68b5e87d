#pragma once

// A certificate authority made fresh for one test run, and a server certificate it signed for
// 127.0.0.1, ::1 and localhost, as PEM text or written as PEM files into a directory. Every
// test that needs TLS on loopback gets its certificates here.

#include <filesystem>
#include <string>

namespace errand::fakes {

inline constexpr const char* kEveryLoopbackName = "DNS:localhost,IP:127.0.0.1,IP:::1";

struct TestCertificates {
  std::string ca_pem;
  std::string server_certificate_pem;
  std::string server_key_pem;
};

// Throws std::runtime_error with OpenSSL's reason when a step fails. server_names is the
// server certificate's subjectAltName in OpenSSL's notation.
TestCertificates make_test_certificates(const std::string& ca_name = "errand test CA",
                                        const std::string& server_names = kEveryLoopbackName);

struct TestCa {
  std::filesystem::path ca_cert;      // trust this
  std::filesystem::path server_cert;  // serve these
  std::filesystem::path server_key;
};

// make_test_certificates, written as ca.pem, server.pem and server.key into dir. A test of
// host-name checking gives server names the client does not connect to.
TestCa make_test_ca(const std::filesystem::path& dir, const std::string& ca_name = "errand test CA",
                    const std::string& server_names = kEveryLoopbackName);

}  // namespace errand::fakes
