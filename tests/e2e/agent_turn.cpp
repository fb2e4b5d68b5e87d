#include "tests/e2e/agent_turn.hpp"

namespace errand::e2e {

bool provider_received_real_key(E2eHarness& h) {
  for (const auto& r : h.provider().requests())
    if (r.header("x-api-key") == h.provider_key() ||
        r.header("authorization") == "Bearer " + h.provider_key())
      return true;
  return false;
}

}  // namespace errand::e2e
