#pragma once

// A session that keeps the profile's nic (egress open) needs the guest to configure it, which may
// still be under way when the exec runs, or may never happen: errand's guest filter refuses the
// packet sockets a DHCP client needs (docs/sandbox-incus.md). The init waits for a default route
// before it starts the agent, so an agent's first request does not race the setup, and ends the
// session saying why when none comes, rather than start an agent with no network.

#include <chrono>
#include <errand/sdk/result.hpp>
#include <string_view>

namespace errand::incus::guest {

// How long a nic may take to get its route: the guest's boot comes first, under load.
inline constexpr std::chrono::seconds kNetworkDeadline{30};

// Whether a /proc/net/route table holds a usable default route: destination 0.0.0.0 with the
// route up (RTF_UP), on an interface other than lo.
bool has_default_route(std::string_view route_table);

// Reads /proc/net/route until it has a default route or the deadline passes; the error says
// what was waited for, for how long, and what to check.
sdk::Result<void> await_default_route(std::chrono::milliseconds deadline);

}  // namespace errand::incus::guest
