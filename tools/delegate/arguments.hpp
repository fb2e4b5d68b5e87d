#pragma once

// The delegate command's command line: `delegate [--file PATH] QUESTION...`. The artefact is
// PATH, or standard input when no --file is given (`--file -` or a bare `-` name it
// explicitly); the question is every other argument joined with spaces. Options may stand
// anywhere before `--`, after which every argument is part of the question.

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace errand::delegate {

inline constexpr std::size_t kQuestionMaxBytes = 4096;

struct Invocation {
  std::optional<std::string> file;  // none: standard input
  std::string question;
};

struct HelpRequested {};

// A refusal of the command line: one sentence, printed with the usage line, exit 2.
struct UsageError {
  std::string sentence;
};

using ParsedArguments = std::variant<Invocation, HelpRequested, UsageError>;

ParsedArguments parse_arguments(const std::vector<std::string>& args);

std::string usage_line();
std::string help_text();

}  // namespace errand::delegate
