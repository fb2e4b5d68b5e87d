#pragma once

// The IncusRequester a backend instance talks to incusd through. Defined by whichever of
// client_requester.cpp (over the REST client in client/) or no_client_requester.cpp (a build
// without it) CMakeLists.txt compiles.

#include <errand/sdk/host_services.hpp>

#include "plugins/sandbox-incus/impl/incus_requester.hpp"
#include "plugins/sandbox-incus/impl/incus_settings.hpp"

namespace errand::incus {

IncusRequester make_requester(const sdk::HostServices& host, const IncusSettings& settings);

}  // namespace errand::incus
