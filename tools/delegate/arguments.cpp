#include "tools/delegate/arguments.hpp"

namespace errand::delegate {

namespace {

constexpr const char* kStandardInput = "-";

std::string two_artefacts(const std::string& first, const std::string& second) {
  const auto name = [](const std::string& source) {
    return source == kStandardInput ? std::string("standard input") : "\"" + source + "\"";
  };
  return "delegate takes one artefact, and this names two (" + name(first) + " and " +
         name(second) + "); ask about each in its own call";
}

}  // namespace

ParsedArguments parse_arguments(const std::vector<std::string>& args) {
  std::optional<std::string> source;  // "-" for standard input named explicitly
  std::vector<std::string> words;
  bool options_ended = false;
  const auto take_source = [&](const std::string& value) -> std::optional<UsageError> {
    if (source) return UsageError{two_artefacts(*source, value)};
    source = value;
    return std::nullopt;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_ended) {
      words.push_back(arg);
    } else if (arg == "--") {
      options_ended = true;
    } else if (arg == "--help" || arg == "-h") {
      return HelpRequested{};
    } else if (arg == "--file" || arg.rfind("--file=", 0) == 0) {
      std::string value;
      if (arg == "--file") {
        if (i + 1 == args.size()) return UsageError{"--file needs the path of the artefact"};
        value = args[++i];
      } else {
        value = arg.substr(std::string_view("--file=").size());
      }
      if (value.empty()) return UsageError{"--file needs the path of the artefact"};
      if (auto refused = take_source(value)) return *refused;
    } else if (arg == kStandardInput) {
      if (auto refused = take_source(arg)) return *refused;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return UsageError{"delegate has no option " + arg +
                        "; a question that starts with - goes after --"};
    } else {
      words.push_back(arg);
    }
  }
  Invocation out;
  for (const auto& word : words) {
    if (!out.question.empty() && !word.empty()) out.question += ' ';
    out.question += word;
  }
  if (out.question.find_first_not_of(" \t\n") == std::string::npos)
    return UsageError{"delegate needs a question about the artefact"};
  if (out.question.size() > kQuestionMaxBytes)
    return UsageError{"the question is " + std::to_string(out.question.size()) +
                      " bytes, over the limit of " + std::to_string(kQuestionMaxBytes) +
                      "; ask something shorter"};
  if (source && *source != kStandardInput) out.file = *source;
  return out;
}

std::string usage_line() {
  return "usage: delegate [--file PATH] QUESTION...  (delegate --help says more)";
}

std::string help_text() {
  return "usage: delegate [--file PATH] QUESTION...\n"
         "\n"
         "Asks one question about one thing that already exists - a file, a log, a diff,\n"
         "standard input - and prints the answer, written by a cheaper model that sees only\n"
         "that thing and the question and cannot run or read anything else. Use it to learn\n"
         "what a large artefact says without reading all of it yourself.\n"
         "\n"
         "The artefact is PATH, or standard input when no --file is given (--file - says so\n"
         "explicitly). It may be at most 2 MiB of UTF-8 text. The question is every other\n"
         "argument, joined with spaces.\n"
         "\n"
         "Examples:\n"
         "  delegate --file build.log 'Which test failed first, and with what message?'\n"
         "  git diff | delegate 'Does this change alter any public function signature?'\n"
         "\n"
         "Exit status: 0 answered; 1 refused or failed (the reason is on standard error);\n"
         "2 a mistake in the command line or an artefact that cannot be read.\n";
}

}  // namespace errand::delegate
