#include <errand/sdk/plugin.hpp>

#include "plugins/sandbox-podman/impl/podman_backend.hpp"

ERRAND_PLUGIN(errand::podman::PodmanBackend, "sandbox-podman", "0.1.0")
