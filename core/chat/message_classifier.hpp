#pragma once

// What an inbound message in the served channel or a session's thread is: an aside for the
// people only, one of our commands (with its arguments checked), another bot's command, or a
// prompt for the agent.

#include "core/chat/command_arguments.hpp"
#include "core/chat/commands.hpp"

#include <errand/sdk/chat_transport.hpp>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace errand::chat {

enum class Where { channel, thread };

struct PromptMessage {
  std::string text;
};

// "!!! ..." is checked before anything else: the people in the thread see it, the agent never
// does.
struct AsideMessage {
  std::string text;
};

// An unknown !word: most likely another bot's command, so nothing answers it.
struct IgnoredMessage {
  std::string reason;
};

struct ParsedCommand {
  const CommandDefinition* definition = nullptr;
  // Given arguments by name; absent optional ones are not present.
  std::map<std::string, std::string, std::less<>> arguments;
  std::optional<GrantArgument> grant;  // !grant only

  CommandId id() const { return definition->id; }
  bool has_arguments() const { return !arguments.empty(); }
  const std::string* argument(std::string_view name) const;
  // The access this use of the command needs (narrower with arguments for !model).
  CommandAccess required_access() const;
};

// One of our commands used wrongly: the sentence says what was refused and what to write.
struct CommandRefusal {
  const CommandDefinition* definition = nullptr;  // null for a slash command that is not ours
  std::string sentence;
};

using ClassifiedMessage =
    std::variant<PromptMessage, AsideMessage, ParsedCommand, CommandRefusal, IgnoredMessage>;

ClassifiedMessage classify_message(std::string_view text, Where where);

// A slash command call, checked with the same rules as the typed form.
std::variant<ParsedCommand, CommandRefusal> parse_slash_command(const sdk::CommandCall& call,
                                                                Where where);

}  // namespace errand::chat
