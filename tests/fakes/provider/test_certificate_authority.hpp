#pragma once

// A certificate authority made at run time for one test run, and a server certificate it signed
// for 127.0.0.1 and localhost, so TLS on loopback is real TLS that a client verifies against
// the test CA and nothing else.

#include <string>

namespace errand::fakes {

struct TestCertificates {
  std::string ca_pem;
  std::string server_certificate_pem;
  std::string server_key_pem;
};

// Throws std::runtime_error naming the OpenSSL step that failed.
TestCertificates make_test_certificates();

}  // namespace errand::fakes
