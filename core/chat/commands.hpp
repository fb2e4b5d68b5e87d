#pragma once

// The chat commands as the rest of the daemon reads them. Each command's definition and its
// handler are written together in core/commands/ (one file per command, or per small family);
// command_table() lists them. `!name args` in a message, the slash command of the same name, the
// !help text and the commands reference page all come from that table, so they never disagree.

#include <boost/asio/awaitable.hpp>
#include <errand/sdk/chat_transport.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace errand::commands {
struct CommandCall;
}

namespace errand::chat {

// What runs a command once its arguments and the caller's access are checked.
using CommandHandler = boost::asio::awaitable<void> (*)(const commands::CommandCall& call);

// Names each command for the code that must tell one from another (the classifier's grant
// arguments, !then taken as a prompt).
enum class CommandId {
  help,
  status,
  stop,
  interrupt,
  model,
  models,
  usage,
  grant,
  file,
  ls,
  cat,
  allow,
  deny,
  guests,
  then,
  pwd,
  shutdown,
  pr,
};

// Who may use a command, from the widest to the narrowest.
enum class CommandAccess {
  anyone,     // any account that is not blocked
  allowed,    // chat.allowedUserIds ("*" = everyone), the thread's guests, owner and operators
  owner,      // the thread's owner (who started it) and operators
  operators,  // chat.operatorUserIds only
  // shutdown.allowedUserIds only: stopping the daemon ends every session, so being an
  // operator of sessions is not enough.
  shutdown,
};

// Where a command may be typed.
enum class CommandPlace { thread, channel, both };

enum class ArgumentKind {
  word,      // one token without spaces (a model name)
  path,      // a path inside the project; may hold spaces, so it takes the rest of the line
  host,      // a host name or *.example.com
  duration,  // 10m, 2h, 1d, 30s, or "always"
  account,   // a mention (<@id>, <@!id>) or a bare account id; parsed to the id
  text,      // free text, the rest of the message, over several lines if need be
};

struct ArgumentSpec {
  std::string_view name;
  std::string_view description;
  ArgumentKind kind = ArgumentKind::word;
  bool required = false;
};

struct CommandDefinition {
  CommandId id;
  std::string_view name;  // without the "!"
  std::string_view description;
  std::vector<ArgumentSpec> arguments = {};
  CommandAccess access = CommandAccess::allowed;
  // Narrower access once an argument is given (!model lists for anyone allowed, switching is the
  // owner's); the same as access when absent.
  std::optional<CommandAccess> access_with_arguments = std::nullopt;
  CommandPlace place = CommandPlace::both;
  // Where an argument is given, where it may be used (!model <name> needs a session).
  std::optional<CommandPlace> place_with_arguments = std::nullopt;
  CommandHandler handle = nullptr;
};

// In the order !help lists them (core/commands/command_table.cpp).
const std::vector<CommandDefinition>& command_table();
const CommandDefinition* find_command(std::string_view name);

// The slash commands to register, from the same table.
std::vector<sdk::CommandSpec> slash_command_specs();

// "!grant <host> [duration|always]"
std::string usage_of(const CommandDefinition& command);

// The !help answer: the commands usable where it was asked, in a fence, with who may use each.
std::string help_text(bool in_thread);

std::string_view describe(CommandAccess access);
std::string_view describe(CommandPlace place);

// Who may use a command and where, including the narrower rule once an argument is given:
// "allowed users and the thread's guests; with an argument, the thread's owner and operators".
// The !help text and the commands reference page both say it this way.
std::string who_may_use(const CommandDefinition& command);
std::string where_usable(const CommandDefinition& command);

}  // namespace errand::chat
