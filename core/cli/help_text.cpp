// `errand help` and `errand help COMMAND`: the command table rendered for a terminal.
#include "core/cli/command_table.hpp"
#include "core/cli/commands.hpp"

#include <algorithm>
#include <ostream>
#include <string>

namespace errand::cli {

namespace {

constexpr std::size_t kWidth = 96;
// Terms longer than this get their text on the next line rather than pushing the column right.
constexpr std::size_t kWidestTermColumn = 22;

// Writes text (no line breaks of its own) wrapped at kWidth: the first line after `first`
// (already written by the caller, of width first_width), the others indented by `indent`.
void write_wrapped(std::ostream& out, std::string_view text, std::size_t first_width,
                   std::size_t indent) {
  std::size_t column = first_width;
  bool line_empty = true;
  while (!text.empty()) {
    const auto space = text.find(' ');
    const auto word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    if (word.empty()) continue;
    if (!line_empty && column + 1 + word.size() > kWidth) {
      out << '\n' << std::string(indent, ' ');
      column = indent;
      line_empty = true;
    }
    if (!line_empty) {
      out << ' ';
      ++column;
    }
    out << word;
    column += word.size();
    line_empty = false;
  }
  out << '\n';
}

// Paragraphs separated by a blank line, each wrapped.
void write_paragraphs(std::ostream& out, std::string_view text) {
  while (!text.empty()) {
    const auto end = text.find("\n\n");
    write_wrapped(out, text.substr(0, end), 0, 0);
    if (end == std::string_view::npos) break;
    out << '\n';
    text = text.substr(end + 2);
  }
}

// "  term    text", the texts aligned in one column.
void write_terms(std::ostream& out, std::span<const TermEntry> terms) {
  std::size_t column = 0;
  for (const auto& t : terms) {
    if (t.term.size() <= kWidestTermColumn) column = std::max(column, t.term.size());
  }
  const std::size_t indent = 2 + column + 2;
  for (const auto& t : terms) {
    out << "  " << t.term;
    if (t.term.size() > kWidestTermColumn) {
      out << '\n' << std::string(indent, ' ');
    } else {
      out << std::string(column - t.term.size() + 2, ' ');
    }
    write_wrapped(out, t.text, indent, indent);
  }
}

void write_overview(std::ostream& out) {
  out << "errand - " << cli_program_summary() << "\n\nUsage: errand <command> [options]\n\n";
  out << "Commands:\n";
  for (const auto& row : cli_commands()) {
    out << "  " << row.synopsis << "\n      ";
    write_wrapped(out, row.summary, 6, 6);
  }
  out << "\nOptions:\n";
  write_terms(out, cli_global_options());
  out << "\nEnvironment:\n";
  write_terms(out, cli_environment());
  if (const auto* run = find_cli_command("run")) {
    std::string codes = "Exit codes of `errand run`:";
    for (const auto& code : run->exit_codes) {
      codes += std::string(" ") + std::string(code.term) + " " + std::string(code.text) + ";";
    }
    codes.back() = '.';
    out << '\n';
    write_wrapped(out, codes, 0, 0);
  }
  out << '\n';
  write_wrapped(out,
                "Run `errand help COMMAND` for a command's description and exit codes, "
                "`errand help --man` for the manual page.",
                0, 0);
}

void write_command(std::ostream& out, const CliCommand& row) {
  out << "Usage: errand " << row.synopsis << "\n\n";
  write_paragraphs(out, row.description);
  if (!row.terms.empty()) {
    out << '\n';
    write_terms(out, row.terms);
  }
  if (!row.exit_codes.empty()) {
    out << "\nExit codes:\n";
    write_terms(out, row.exit_codes);
  }
}

}  // namespace

void print_help(std::ostream& out, const std::string& command) {
  if (const auto* row = find_cli_command(command)) {
    write_command(out, *row);
  } else {
    write_overview(out);
  }
}

}  // namespace errand::cli
