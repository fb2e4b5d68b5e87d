#include "core/chat/commands.hpp"

#include <fmt/format.h>
#include <algorithm>

namespace errand::chat {

const CommandDefinition* find_command(std::string_view name) {
  const auto& t = command_table();
  const auto it = std::find_if(t.begin(), t.end(), [&](const auto& c) { return c.name == name; });
  return it == t.end() ? nullptr : &*it;
}

std::vector<sdk::CommandSpec> slash_command_specs() {
  std::vector<sdk::CommandSpec> specs;
  for (const auto& c : command_table()) {
    sdk::CommandSpec spec;
    spec.name = std::string(c.name);
    spec.description = std::string(c.description);
    for (const auto& a : c.arguments) {
      spec.options.push_back(
          sdk::CommandOption{std::string(a.name), std::string(a.description), a.required});
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

std::string usage_of(const CommandDefinition& command) {
  std::string usage = "!" + std::string(command.name);
  for (const auto& a : command.arguments) {
    const auto shown = a.kind == ArgumentKind::duration  ? std::string("duration|always")
                       : a.kind == ArgumentKind::account ? "@" + std::string(a.name)
                                                         : std::string(a.name);
    usage += a.required ? fmt::format(" <{}>", shown) : fmt::format(" [{}]", shown);
  }
  return usage;
}

std::string_view describe(CommandAccess access) {
  switch (access) {
    case CommandAccess::anyone: return "anyone";
    case CommandAccess::allowed: return "allowed users and the thread's guests";
    case CommandAccess::owner: return "the thread's owner and operators";
    case CommandAccess::operators: return "operators";
    case CommandAccess::shutdown: return "shutdown.allowedUserIds";
  }
  return "operators";
}

std::string_view describe(CommandPlace place) {
  switch (place) {
    case CommandPlace::thread: return "in a session's thread";
    case CommandPlace::channel: return "in the channel";
    case CommandPlace::both: return "in the channel or a thread";
  }
  return "in a session's thread";
}

std::string who_may_use(const CommandDefinition& command) {
  auto who = std::string(describe(command.access));
  if (command.access_with_arguments && *command.access_with_arguments != command.access)
    who += fmt::format("; with an argument, {}", describe(*command.access_with_arguments));
  return who;
}

std::string where_usable(const CommandDefinition& command) {
  auto where = std::string(describe(command.place));
  if (command.place_with_arguments && *command.place_with_arguments != command.place)
    where += fmt::format("; with an argument, {}", describe(*command.place_with_arguments));
  return where;
}

std::string help_text(bool in_thread) {
  std::vector<std::pair<std::string, const CommandDefinition*>> rows;
  std::size_t width = 0;
  for (const auto& c : command_table()) {
    const bool usable =
        c.place == CommandPlace::both || (c.place == CommandPlace::thread) == in_thread;
    if (!usable) continue;
    rows.emplace_back(usage_of(c), &c);
    width = std::max(width, rows.back().first.size());
  }
  std::string text =
      in_thread ? "Commands in this thread:\n```\n" : "Commands in the channel:\n```\n";
  for (const auto& [usage, c] : rows) {
    text += fmt::format("{:<{}}  {} ({})\n", usage, width, c->description, who_may_use(*c));
  }
  text += "```\n";
  text += in_thread
              ? "A message starting with !!! is an aside: people here see it, the agent never does."
              : "Write a message here to start a session in a new thread.";
  return text;
}

}  // namespace errand::chat
