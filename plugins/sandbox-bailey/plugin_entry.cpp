#include <errand/sdk/plugin.hpp>

#include "plugins/sandbox-bailey/impl/bailey_backend.hpp"

ERRAND_PLUGIN(errand::bailey::BaileyBackend, "sandbox-bailey", "0.1.0")
