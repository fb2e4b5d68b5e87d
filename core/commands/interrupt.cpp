// !interrupt cancels the running turn and keeps the session.

#include "core/commands/command_call.hpp"

namespace errand::commands {

namespace {

boost::asio::awaitable<void> answer_interrupt(const CommandCall& call) {
  if (const auto& live = call.live())
    live->interrupt(call.to);
  else
    call.host.reply(call.to, std::string(kNoSession));
  co_return;
}

}  // namespace

chat::CommandDefinition interrupt_command() {
  return {.id = chat::CommandId::interrupt,
          .name = "interrupt",
          .description = "Stop the running turn and keep the session",
          .access = chat::CommandAccess::owner,
          .place = chat::CommandPlace::thread,
          .handle = &answer_interrupt};
}

}  // namespace errand::commands
