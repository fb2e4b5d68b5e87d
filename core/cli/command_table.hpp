#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace errand::cli {

// A term and what it means: a subcommand or option of a command, an environment variable, a
// file, an exit code's number.
struct TermEntry {
  std::string_view term;
  std::string_view text;
};

// One row of the command-line table. `errand help`, `errand help COMMAND` and the manual page
// (`errand help --man`) are all rendered from these rows, so they cannot say different things.
// Texts are prose without line breaks (the renderers wrap them); a blank line ("\n\n") in
// description separates paragraphs.
struct CliCommand {
  std::string_view name;         // what follows `errand`: "threads"
  std::string_view synopsis;     // the usage after `errand`: "threads [list | show ID]"
  std::string_view summary;      // one line, lower case, no full stop
  std::string_view description;  // what it does, in full
  std::vector<TermEntry> terms;  // its subcommands and options
  std::vector<TermEntry> exit_codes;
};

// What errand is, in one line (the manual page's NAME) and in a paragraph.
std::string_view cli_program_summary();
std::string_view cli_program_description();

// Every command, in the order the help lists them.
std::span<const CliCommand> cli_commands();

// The row named name, or nullptr.
const CliCommand* find_cli_command(std::string_view name);

// The options every command takes (before the command's name).
std::span<const TermEntry> cli_global_options();

// The environment variables errand reads, and the files it reads or writes.
std::span<const TermEntry> cli_environment();
std::span<const TermEntry> cli_files();

}  // namespace errand::cli
