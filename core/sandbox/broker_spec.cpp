#include "core/sandbox/broker_spec.hpp"

namespace errand::sandbox {

sdk::BrokerSessionSpec broker_session_spec(const sdk::SandboxPolicy& policy) {
  sdk::BrokerSessionSpec spec;
  spec.egress_ports = policy.egress_ports;
  spec.egress_allow = policy.egress_allow;
  spec.allow_internal = policy.allow_internal;
  return spec;
}

}  // namespace errand::sandbox
