#include "core/remote/call/call_outcome.hpp"

#include <fmt/format.h>

namespace errand::remote {

std::string connection_lost_sentence(const CallOutcome& outcome) {
  if (outcome.lost_reason.empty())
    return fmt::format("connection lost after sequence {}", outcome.last_sequence);
  return fmt::format("connection lost after sequence {} ({})", outcome.last_sequence,
                     outcome.lost_reason);
}

}  // namespace errand::remote
