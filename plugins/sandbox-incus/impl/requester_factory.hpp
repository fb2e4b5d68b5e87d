#pragma once

// The IncusRequester a backend instance talks to incusd through: blocking calls of the REST
// client (client_requester.cpp) on the socket and project sandbox.incus names.

#include <errand/sdk/host_services.hpp>

#include "plugins/sandbox-incus/impl/incus_requester.hpp"
#include "plugins/sandbox-incus/impl/incus_settings.hpp"

namespace errand::incus {

IncusRequester make_requester(const sdk::HostServices& host, const IncusSettings& settings);

}  // namespace errand::incus
