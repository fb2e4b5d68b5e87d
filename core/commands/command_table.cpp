// The chat commands, in the order !help lists them. A new command is its own file in this folder
// (its definition and its handler), a name in chat::CommandId, and a line here.

#include "core/chat/commands.hpp"

#include <vector>

namespace errand::commands {

// Each is defined in the file of its name (ls, cat and file in project_files.cpp; allow and
// deny in guests.cpp).
chat::CommandDefinition help_command();
chat::CommandDefinition status_command();
chat::CommandDefinition stop_command();
chat::CommandDefinition interrupt_command();
chat::CommandDefinition model_command();
chat::CommandDefinition models_command();
chat::CommandDefinition usage_command();
chat::CommandDefinition grant_command();
chat::CommandDefinition file_command();
chat::CommandDefinition ls_command();
chat::CommandDefinition cat_command();
chat::CommandDefinition pr_command();
chat::CommandDefinition pwd_command();
chat::CommandDefinition then_command();
chat::CommandDefinition guests_command();
chat::CommandDefinition allow_command();
chat::CommandDefinition deny_command();
chat::CommandDefinition shutdown_command();

}  // namespace errand::commands

namespace errand::chat {

const std::vector<CommandDefinition>& command_table() {
  using namespace commands;
  static const std::vector<CommandDefinition> table = {
      help_command(),   status_command(), stop_command(),    interrupt_command(), model_command(),
      models_command(), usage_command(),  grant_command(),   file_command(),      ls_command(),
      cat_command(),    pr_command(),     pwd_command(),     then_command(),      guests_command(),
      allow_command(),  deny_command(),   shutdown_command()};
  return table;
}

}  // namespace errand::chat
