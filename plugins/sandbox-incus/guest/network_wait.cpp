#include "plugins/sandbox-incus/guest/network_wait.hpp"

#include <net/route.h>

#include <charconv>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace errand::incus::guest {

namespace {

// The fields of one /proc/net/route line: Iface Destination Gateway Flags ..., the addresses
// and flags in hexadecimal.
struct RouteLine {
  std::string iface;
  std::string destination;
  unsigned flags = 0;
};

bool parse_line(const std::string& line, RouteLine& out) {
  std::istringstream fields(line);
  std::string gateway;
  std::string flags;
  if (!(fields >> out.iface >> out.destination >> gateway >> flags)) return false;
  const auto [end, ec] = std::from_chars(flags.data(), flags.data() + flags.size(), out.flags, 16);
  return ec == std::errc{} && end == flags.data() + flags.size();
}

std::string read_route_table() {
  std::ifstream in("/proc/net/route");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

bool has_default_route(std::string_view route_table) {
  std::istringstream lines{std::string(route_table)};
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) {
    RouteLine route;
    if (!parse_line(line, route)) continue;
    if (route.destination == "00000000" && (route.flags & RTF_UP) != 0 && route.iface != "lo")
      return true;
  }
  return false;
}

sdk::Result<void> await_default_route(std::chrono::milliseconds deadline) {
  using namespace std::chrono_literals;
  const auto until = std::chrono::steady_clock::now() + deadline;
  for (;;) {
    if (has_default_route(read_route_table())) return {};
    if (std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(50ms);
  }
  return sdk::make_error(
      "egress is open, but the guest's nic had no default route " +
      std::to_string(std::chrono::duration_cast<std::chrono::seconds>(deadline).count()) +
      " s after the start, so the agent would have no network: errand's guest filter refuses the "
      "packet sockets a DHCP client needs, and the image configured no address itself "
      "(docs/sandbox-incus.md, egress open)");
}

}  // namespace errand::incus::guest
