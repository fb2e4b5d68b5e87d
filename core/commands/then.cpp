// !then: a prompt for after the running turn, never an answer to the agent's open question.
// Typed, it is a prompt, and the session manager takes it as one (manager_inbound.cpp); only
// its slash form reaches this handler, and is refused: a slash command is no message of the
// thread, so there is nothing to mark the turn on or record it by.

#include "core/commands/command_call.hpp"

namespace errand::commands {

namespace {

boost::asio::awaitable<void> refuse_slash_then(const CommandCall& call) {
  call.host.refuse(call.to,
                   "/then cannot carry a prompt: a turn is marked on the message that asked for "
                   "it, and a slash command is none; type `!then <prompt>` in the thread instead");
  co_return;
}

}  // namespace

chat::CommandDefinition then_command() {
  return {.id = chat::CommandId::then,
          .name = "then",
          .description =
              "A prompt for after the running turn (now, when none runs); never an answer to "
              "the agent's question",
          .arguments = {{"prompt", "What to ask the agent", chat::ArgumentKind::text, true}},
          .place = chat::CommandPlace::thread,
          .handle = &refuse_slash_then};
}

}  // namespace errand::commands
