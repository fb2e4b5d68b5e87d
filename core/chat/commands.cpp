#include "core/chat/commands.hpp"

#include <fmt/format.h>
#include <algorithm>

namespace errand::chat {

namespace {

std::vector<CommandDefinition> build_table() {
  using A = ArgumentKind;
  std::vector<CommandDefinition> t;
  t.push_back({CommandId::help,
               "help",
               "List the commands you can use here",
               {},
               CommandAccess::anyone,
               std::nullopt,
               CommandPlace::both,
               std::nullopt});
  t.push_back({CommandId::status,
               "status",
               "What this session (or, in the channel, the daemon) is doing, and the queue",
               {},
               CommandAccess::anyone,
               std::nullopt,
               CommandPlace::both,
               std::nullopt});
  t.push_back({CommandId::stop,
               "stop",
               "End this session; writing in the thread again resumes it",
               {},
               CommandAccess::owner,
               std::nullopt,
               CommandPlace::thread,
               std::nullopt});
  t.push_back({CommandId::interrupt,
               "interrupt",
               "Stop the running turn and keep the session",
               {},
               CommandAccess::owner,
               std::nullopt,
               CommandPlace::thread,
               std::nullopt});
  t.push_back({CommandId::model,
               "model",
               "List the models, or move this session to another one keeping the conversation",
               {{"name", "The model to switch to (in a session's thread)", A::word, false}},
               CommandAccess::allowed,
               CommandAccess::owner,
               CommandPlace::both,
               CommandPlace::thread});
  // It spends a call per provider with the real keys, so it is an operator's to make.
  t.push_back({CommandId::models,
               "models",
               "refresh: ask each configured provider again which models it offers",
               {{"what", "refresh", A::word, true}},
               CommandAccess::operators,
               std::nullopt,
               CommandPlace::both,
               std::nullopt});
  t.push_back({CommandId::usage,
               "usage",
               "How much of the provider's usage window is left and when it resets",
               {},
               CommandAccess::anyone,
               std::nullopt,
               CommandPlace::both,
               std::nullopt});
  t.push_back(
      {CommandId::grant,
       "grant",
       "Let this session reach a host it was refused: once, for a while, or always",
       {{"host", "The host name, or *.example.com", A::host, true},
        {"duration", "How long: 10m, 2h, 1d, or always (default: once)", A::duration, false}},
       CommandAccess::owner,
       std::nullopt,
       CommandPlace::thread,
       std::nullopt});
  t.push_back({CommandId::file,
               "file",
               "Upload a file from the project (up to 8 MiB)",
               {{"path", "The file, relative to the project", A::path, true}},
               CommandAccess::allowed,
               std::nullopt,
               CommandPlace::thread,
               std::nullopt});
  t.push_back({CommandId::ls,
               "ls",
               "List a folder of the project",
               {{"path", "The folder, relative to the project (default: its top)", A::path, false}},
               CommandAccess::allowed,
               std::nullopt,
               CommandPlace::thread,
               std::nullopt});
  t.push_back({CommandId::cat,
               "cat",
               "Show a file of the project inline (up to 12 KiB)",
               {{"path", "The file, relative to the project", A::path, true}},
               CommandAccess::allowed,
               std::nullopt,
               CommandPlace::thread,
               std::nullopt});
  return t;
}

}  // namespace

const std::vector<CommandDefinition>& command_table() {
  static const std::vector<CommandDefinition> table = build_table();
  return table;
}

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
    const auto shown =
        a.kind == ArgumentKind::duration ? std::string("duration|always") : std::string(a.name);
    usage += a.required ? fmt::format(" <{}>", shown) : fmt::format(" [{}]", shown);
  }
  return usage;
}

std::string_view describe(CommandAccess access) {
  switch (access) {
    case CommandAccess::anyone: return "anyone";
    case CommandAccess::allowed: return "allowed users";
    case CommandAccess::owner: return "the thread's owner and operators";
    case CommandAccess::operators: return "operators";
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
    auto who = std::string(describe(c->access));
    if (c->access_with_arguments && *c->access_with_arguments != c->access)
      who += fmt::format("; with an argument, {}", describe(*c->access_with_arguments));
    text += fmt::format("{:<{}}  {} ({})\n", usage, width, c->description, who);
  }
  text += "```\n";
  text += in_thread
              ? "A message starting with !!! is an aside: people here see it, the agent never does."
              : "Write a message here to start a session in a new thread.";
  return text;
}

}  // namespace errand::chat
