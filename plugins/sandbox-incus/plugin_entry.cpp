#include <errand/sdk/plugin.hpp>

#include "plugins/sandbox-incus/impl/incus_backend.hpp"

ERRAND_PLUGIN(errand::incus::IncusBackend, "sandbox-incus", "0.1.0")
