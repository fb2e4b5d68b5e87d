// !help: the commands usable where it was asked, with who may use each.

#include "core/commands/command_call.hpp"

namespace errand::commands {

namespace {

boost::asio::awaitable<void> answer_help(const CommandCall& call) {
  call.host.reply(call.to, chat::help_text(call.thread.has_value()));
  co_return;
}

}  // namespace

chat::CommandDefinition help_command() {
  return {.id = chat::CommandId::help,
          .name = "help",
          .description = "List the commands you can use here",
          .access = chat::CommandAccess::anyone,
          .handle = &answer_help};
}

}  // namespace errand::commands
