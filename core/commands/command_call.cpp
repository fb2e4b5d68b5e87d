#include "core/commands/command_call.hpp"

namespace errand::commands {

const std::shared_ptr<sessions::Session>& CommandCall::live() const {
  static const std::shared_ptr<sessions::Session> none;
  return thread ? thread->live : none;
}

}  // namespace errand::commands
