#include <errand/sdk/plugin.hpp>

#include "plugins/broker/broker.hpp"

ERRAND_PLUGIN(errand::broker::Broker, "broker", "0.1.0")
