#include "core/chat/commands.hpp"

#include <fmt/format.h>
#include <algorithm>

namespace errand::chat {

namespace {

// Each entry names only what differs from CommandDefinition's defaults (allowed users, in the
// channel or a thread), so a new command is one more push_back.
std::vector<CommandDefinition> build_table() {
  using A = ArgumentKind;
  using Access = CommandAccess;
  using Place = CommandPlace;
  std::vector<CommandDefinition> t;
  t.push_back({.id = CommandId::help,
               .name = "help",
               .description = "List the commands you can use here",
               .access = Access::anyone});
  t.push_back(
      {.id = CommandId::status,
       .name = "status",
       .description = "What this session (or, in the channel, the daemon) is doing, and the queue",
       .access = Access::anyone});
  t.push_back({.id = CommandId::stop,
               .name = "stop",
               .description = "End this session; writing in the thread again resumes it",
               .access = Access::owner,
               .place = Place::thread});
  t.push_back({.id = CommandId::interrupt,
               .name = "interrupt",
               .description = "Stop the running turn and keep the session",
               .access = Access::owner,
               .place = Place::thread});
  t.push_back(
      {.id = CommandId::model,
       .name = "model",
       .description =
           "List the models, or move this session to another one keeping the conversation",
       .arguments = {{"name", "The model to switch to (in a session's thread)", A::word, false}},
       .access = Access::allowed,
       .access_with_arguments = Access::owner,
       .place_with_arguments = Place::thread});
  // It spends a call per provider with the real keys, so it is an operator's to make.
  t.push_back({.id = CommandId::models,
               .name = "models",
               .description = "refresh: ask each configured provider again which models it offers",
               .arguments = {{"what", "refresh", A::word, true}},
               .access = Access::operators});
  // Refreshing spends a provider call with the real key, so it is the owner's in a thread, as
  // steering the session is, and an operator's anywhere.
  t.push_back({.id = CommandId::usage,
               .name = "usage",
               .description = "How much of the provider's usage window is left and when it "
                              "resets; refresh: ask the provider now",
               .arguments = {{"what", "refresh: ask the provider now, with one small call", A::word,
                              false}},
               .access = Access::anyone,
               .access_with_arguments = Access::owner});
  t.push_back(
      {.id = CommandId::grant,
       .name = "grant",
       .description = "Let this session reach a host it was refused: once, for a while, or always",
       .arguments = {{"host", "The host name, or *.example.com", A::host, true},
                     {"duration", "How long: 10m, 2h, 1d, or always (default: once)", A::duration,
                      false}},
       .access = Access::owner,
       .place = Place::thread});
  t.push_back({.id = CommandId::file,
               .name = "file",
               .description = "Upload a file from the project (up to 8 MiB)",
               .arguments = {{"path", "The file, relative to the project", A::path, true}},
               .place = Place::thread});
  t.push_back({.id = CommandId::ls,
               .name = "ls",
               .description = "List a folder of the project",
               .arguments = {{"path", "The folder, relative to the project (default: its top)",
                              A::path, false}},
               .place = Place::thread});
  t.push_back({.id = CommandId::cat,
               .name = "cat",
               .description = "Show a file of the project inline (up to 12 KiB)",
               .arguments = {{"path", "The file, relative to the project", A::path, true}},
               .place = Place::thread});
  // It acts on GitHub with the session's token, so it is the owner's, like a grant.
  t.push_back({.id = CommandId::pr,
               .name = "pr",
               .description = "Open a pull request from the branch the agent pushed",
               .arguments = {{"title", "The pull request's title", A::text, true}},
               .access = Access::owner,
               .place = Place::thread});
  t.push_back({.id = CommandId::pwd,
               .name = "pwd",
               .description = "The project's name, and where the agent sees it in the sandbox",
               .place = Place::thread});
  t.push_back(
      {.id = CommandId::then,
       .name = "then",
       .description =
           "A prompt for after the running turn (now, when none runs); never an answer to the "
           "agent's question",
       .arguments = {{"prompt", "What to ask the agent", A::text, true}},
       .place = Place::thread});
  t.push_back({.id = CommandId::guests,
               .name = "guests",
               .description = "Who owns this thread and who its guests are",
               .place = Place::thread});
  t.push_back({.id = CommandId::allow,
               .name = "allow",
               .description = "Make someone a guest of this thread: they may prompt and read",
               .arguments = {{"user", "The person: a mention or an account id", A::account, true}},
               .access = Access::owner,
               .place = Place::thread});
  t.push_back({.id = CommandId::deny,
               .name = "deny",
               .description = "Take a guest of this thread back out",
               .arguments = {{"user", "The guest: a mention or an account id", A::account, true}},
               .access = Access::owner,
               .place = Place::thread});
  t.push_back({.id = CommandId::shutdown,
               .name = "shutdown",
               .description = "Stop every session in order, then the daemon",
               .access = Access::shutdown});
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
