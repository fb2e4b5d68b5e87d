#pragma once

// A network the test makes for itself, so a case about "this host's own non-loopback addresses"
// checks the same thing on every host, a loopback-only one included.
//
// run_case_in_own_network() runs one hidden test case of this very binary in a user and network
// namespace the test account makes (no root needed): besides loopback, the namespace has one
// interface, kOwnInterface, carrying kOwnAddressV4 and kOwnAddressV6. Everything in that run
// that reads the interface list (getifaddrs) sees those addresses and no others; the case runs
// as the test account, as every test does. The inner case carries the hidden tag
// [.own-network]; like every case it fails when it asserts nothing (catch_session.hpp).

#include <string>

namespace errand::test {

inline constexpr const char* kOwnInterface = "errand-own0";
inline constexpr const char* kOwnAddressV4 = "198.51.100.7";  // TEST-NET-2 (RFC 5737)
inline constexpr const char* kOwnAddressV6 = "fd00:e44a::7";  // a unique local address

struct OwnNetworkRun {
  int exit_code = -1;  // 128 + signal when the run was killed
  std::string output;  // the inner run's stdout and stderr, and the namespace set-up's
};

// Runs the hidden test case named test_case (its exact name, without commas or brackets) in the
// namespace described above and returns how it ended. A namespace that cannot be made ends
// the run with a non-zero code and says why in output.
OwnNetworkRun run_case_in_own_network(const std::string& test_case);

// True when Catch2's summary in a run's output says that exactly one test case ran and passed.
bool one_case_passed(const OwnNetworkRun& run);

}  // namespace errand::test
