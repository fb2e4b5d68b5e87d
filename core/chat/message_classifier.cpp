#include "core/chat/message_classifier.hpp"

#include "common/ascii_case.hpp"
#include "core/chat/account_mention.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>

namespace errand::chat {

namespace {

constexpr std::string_view kAsideMark = "!!!";
constexpr std::string_view kSpace = " \t\r\n";

std::string_view trim_left(std::string_view s) {
  const auto at = s.find_first_not_of(kSpace);
  return at == std::string_view::npos ? std::string_view() : s.substr(at);
}

std::string_view trim(std::string_view s) {
  s = trim_left(s);
  const auto end = s.find_last_not_of(kSpace);
  return end == std::string_view::npos ? std::string_view() : s.substr(0, end + 1);
}

// A command word starts with a letter and holds letters, digits, '-' and '_'; "! hello" or
// "!?" are ordinary text.
bool looks_like_command_word(std::string_view word) {
  if (word.empty() || !std::isalpha(static_cast<unsigned char>(word.front()))) return false;
  return std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
}

CommandRefusal refuse(const CommandDefinition& def, std::string sentence) {
  return CommandRefusal{&def, std::move(sentence)};
}

bool fits(CommandPlace place, Where where) {
  return place == CommandPlace::both || (place == CommandPlace::thread) == (where == Where::thread);
}

using Arguments = std::map<std::string, std::string, std::less<>>;

// Checks given arguments by kind and the place the command was used in.
std::variant<ParsedCommand, CommandRefusal> finish(const CommandDefinition& def, Arguments given,
                                                   Where where) {
  const auto usage = usage_of(def);
  if (!fits(def.place, where)) {
    return refuse(
        def, where == Where::channel
                 ? fmt::format("!{} works {}, not in the channel; write it in the "
                               "thread of the session it is meant for",
                               def.name, describe(def.place))
                 : fmt::format("!{} works {}, not in a thread", def.name, describe(def.place)));
  }
  if (!given.empty() && def.place_with_arguments && !fits(*def.place_with_arguments, where)) {
    return refuse(def, fmt::format("{} with an argument works {}, since it changes a session; "
                                   "here, !{} alone still works",
                                   usage, describe(*def.place_with_arguments), def.name));
  }
  ParsedCommand parsed;
  parsed.definition = &def;
  std::string host, duration;
  for (const auto& spec : def.arguments) {
    auto it = given.find(spec.name);
    if (it != given.end()) {
      auto value = std::string(trim(it->second));
      if (spec.kind == ArgumentKind::path) value = std::string(trim(unquote_path(value)));
      if (value.empty()) {
        given.erase(it);
        it = given.end();
      } else {
        it->second = value;
      }
    }
    if (it == given.end()) {
      if (spec.required)
        return refuse(def, fmt::format("!{} needs a {}: {}", def.name, spec.name, usage));
      continue;
    }
    auto& value = it->second;
    switch (spec.kind) {
      case ArgumentKind::path:
        if (value.find_first_of("\r\n") != std::string::npos)
          return refuse(def, fmt::format("a path is one line; {}", usage));
        break;
      case ArgumentKind::word:
        if (value.find_first_of(kSpace) != std::string::npos)
          return refuse(def,
                        fmt::format("the {} is one word without spaces; {}", spec.name, usage));
        break;
      case ArgumentKind::host: host = value; break;
      case ArgumentKind::duration: duration = value; break;
      case ArgumentKind::account: {
        auto account = account_from_mention(value);
        if (!account) return refuse(def, account.error().message + "; " + usage);
        value = std::move(*account);
        break;
      }
      case ArgumentKind::text: break;
    }
    parsed.arguments.emplace(spec.name, value);
  }
  if (def.id == CommandId::grant) {
    auto grant = parse_grant(host, duration);
    if (!grant) return refuse(def, grant.error().message + "; " + usage);
    parsed.grant = std::move(*grant);
  }
  return parsed;
}

}  // namespace

const std::string* ParsedCommand::argument(std::string_view name) const {
  const auto it = arguments.find(name);
  return it == arguments.end() ? nullptr : &it->second;
}

CommandAccess ParsedCommand::required_access() const {
  if (has_arguments() && definition->access_with_arguments)
    return *definition->access_with_arguments;
  return definition->access;
}

ClassifiedMessage classify_message(std::string_view text, Where where) {
  const auto start = trim_left(text);
  if (start.starts_with(kAsideMark))
    return AsideMessage{std::string(trim(start.substr(kAsideMark.size())))};
  if (!start.starts_with('!')) return PromptMessage{std::string(text)};
  auto rest = start.substr(1);
  const auto word_end = std::min(rest.find_first_of(kSpace), rest.size());
  const auto given_word = rest.substr(0, word_end);
  if (!looks_like_command_word(given_word)) return PromptMessage{std::string(text)};
  const std::string word = common::ascii_lower(given_word);
  const auto* def = find_command(word);
  if (!def) {
    return IgnoredMessage{
        fmt::format("!{} is not an errand command; it is probably meant for another bot", word)};
  }
  rest = rest.substr(word_end);
  Arguments given;
  for (const auto& spec : def->arguments) {
    rest = trim_left(rest);
    if (rest.empty()) break;
    if (spec.kind == ArgumentKind::path || spec.kind == ArgumentKind::text) {
      given.emplace(spec.name, std::string(trim(rest)));
      rest = {};
      break;
    }
    const auto end = std::min(rest.find_first_of(kSpace), rest.size());
    given.emplace(spec.name, std::string(rest.substr(0, end)));
    rest = rest.substr(end);
  }
  if (!trim(rest).empty()) {
    if (def->arguments.empty()) {
      return refuse(*def,
                    fmt::format("!{} takes no arguments; send !{} alone", def->name, def->name));
    }
    return refuse(
        *def, fmt::format("there is more after !{} than it takes: {}", def->name, usage_of(*def)));
  }
  auto parsed = finish(*def, std::move(given), where);
  if (auto* command = std::get_if<ParsedCommand>(&parsed)) return std::move(*command);
  return std::get<CommandRefusal>(std::move(parsed));
}

std::variant<ParsedCommand, CommandRefusal> parse_slash_command(const sdk::CommandCall& call,
                                                                Where where) {
  const auto* def = find_command(call.name);
  if (!def) {
    return CommandRefusal{nullptr,
                          fmt::format("/{} is not an errand command; /help lists them", call.name)};
  }
  Arguments given;
  for (const auto& [name, value] : call.options) {
    const bool known = std::any_of(def->arguments.begin(), def->arguments.end(),
                                   [&](const ArgumentSpec& a) { return a.name == name; });
    if (!known) {
      return refuse(*def,
                    fmt::format("/{} has no option \"{}\": {}", def->name, name, usage_of(*def)));
    }
    given.emplace(name, value);
  }
  return finish(*def, std::move(given), where);
}

}  // namespace errand::chat
