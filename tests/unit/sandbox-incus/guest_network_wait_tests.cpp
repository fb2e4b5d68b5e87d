// errand-guest-init's reading of /proc/net/route, as the kernel writes it, for the wait before an
// egress-open session's agent starts. The wait itself runs in a real guest in the e2e suite
// (tests/e2e/web_api_tests.cpp, the Incus session with egress open).

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "plugins/sandbox-incus/guest/network_wait.hpp"

using errand::incus::guest::has_default_route;

namespace {

constexpr const char* kHeader =
    "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n";

}  // namespace

TEST_CASE("a default route on eth0, as DHCP leaves it, is found") {
  const std::string table = std::string(kHeader) +
                            "eth0\t00000000\t01D6FE0A\t0003\t0\t0\t1024\t00000000\t0\t0\t0\n"
                            "eth0\t00D6FE0A\t00000000\t0001\t0\t0\t1024\t00FFFFFF\t0\t0\t0\n";
  CHECK(has_default_route(table));
}

TEST_CASE("no default route: an empty table, only the subnet's route, or one that is down") {
  CHECK_FALSE(has_default_route(""));
  CHECK_FALSE(has_default_route(kHeader));
  CHECK_FALSE(has_default_route(std::string(kHeader) +
                                "eth0\t00D6FE0A\t00000000\t0001\t0\t0\t1024\t00FFFFFF\t0\t0\t0\n"));
  // RTF_UP clear.
  CHECK_FALSE(has_default_route(std::string(kHeader) +
                                "eth0\t00000000\t01D6FE0A\t0002\t0\t0\t1024\t00000000\t0\t0\t0\n"));
  // A default route on lo leads nowhere outside the guest.
  CHECK_FALSE(has_default_route(std::string(kHeader) +
                                "lo\t00000000\t00000000\t0001\t0\t0\t0\t00000000\t0\t0\t0\n"));
  // A line the kernel would not write is skipped, not read as a route.
  CHECK_FALSE(has_default_route(std::string(kHeader) + "eth0\t00000000\t01D6FE0A\tzz\n"));
}
