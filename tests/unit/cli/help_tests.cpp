// `errand help`, `errand help COMMAND` and the manual page are rendered from one command table:
// every row reaches all three, and the manual page is roff that groff reads without a warning.
#include "core/cli/command_table.hpp"
#include "core/cli/commands.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <sstream>
#include <string>

using namespace errand;
using Catch::Matchers::ContainsSubstring;

namespace {

std::string help(const std::string& command) {
  std::ostringstream out;
  cli::print_help(out, command);
  return out.str();
}

std::string man_page() {
  std::ostringstream out;
  cli::print_man_page(out);
  return out.str();
}

// roff's escape of a minus sign, as the page writes options and names.
std::string roff_minus(std::string_view text) {
  std::string out;
  for (const char c : text) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

}  // namespace

TEST_CASE("the overview lists every command of the table with its synopsis and summary") {
  const auto overview = help("");
  REQUIRE(!cli::cli_commands().empty());
  for (const auto& row : cli::cli_commands()) {
    CHECK_THAT(overview, ContainsSubstring(std::string(row.synopsis)));
    CHECK_THAT(overview, ContainsSubstring(std::string(row.summary)));
  }
  for (const auto& variable : cli::cli_environment())
    CHECK_THAT(overview, ContainsSubstring(std::string(variable.term)));
}

TEST_CASE("errand help COMMAND prints that row's usage, terms and exit codes") {
  for (const auto& row : cli::cli_commands()) {
    INFO(row.name);
    const auto text = help(std::string(row.name));
    CHECK(text.rfind("Usage: errand " + std::string(row.synopsis) + "\n", 0) == 0);
    for (const auto& term : row.terms) CHECK_THAT(text, ContainsSubstring(std::string(term.term)));
    for (const auto& code : row.exit_codes)
      CHECK_THAT(text, ContainsSubstring(std::string(code.term) + "  "));
  }
  // An unknown name is answered with the overview, not an empty page.
  CHECK(help("no-such-command") == help(""));
}

TEST_CASE("the manual page has the standard sections and every command of the table") {
  const auto page = man_page();
  CHECK(page.find(".TH ERRAND 1 ") != std::string::npos);
  for (const char* section :
       {".SH NAME\n", ".SH SYNOPSIS\n", ".SH DESCRIPTION\n", ".SH COMMANDS\n", ".SH ENVIRONMENT\n",
        ".SH FILES\n", ".SH \"EXIT STATUS\"\n", ".SH \"SEE ALSO\"\n"}) {
    CHECK_THAT(page, ContainsSubstring(section));
  }
  for (const auto& row : cli::cli_commands()) {
    INFO(row.name);
    CHECK_THAT(page, ContainsSubstring(".SS \"" + roff_minus(row.name) + "\"\n"));
    CHECK_THAT(page, ContainsSubstring("\\fBerrand\\fR " + roff_minus(row.synopsis) + "\n"));
    for (const auto& term : row.terms)
      CHECK_THAT(page, ContainsSubstring("\\fB" + roff_minus(term.term) + "\\fR\n"));
    if (!row.exit_codes.empty())
      CHECK_THAT(page, ContainsSubstring(".SS \"errand " + roff_minus(row.name) + "\"\n"));
  }
  for (const auto& variable : cli::cli_environment())
    CHECK_THAT(page, ContainsSubstring(roff_minus(variable.term)));
  for (const auto& file : cli::cli_files())
    CHECK_THAT(page, ContainsSubstring(roff_minus(file.term)));
}

TEST_CASE("no line of the manual page starts with a stray control character") {
  std::istringstream lines(man_page());
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    if (line.empty()) continue;
    // A request line is one of the macros the page means to use; text lines never start with
    // '.' or '\'' (roff would take them as requests).
    if (line.front() == '.') {
      const bool known = line.rfind(".\\\"", 0) == 0 || line.rfind(".TH ", 0) == 0 ||
                         line.rfind(".SH ", 0) == 0 || line.rfind(".SS ", 0) == 0 ||
                         line == ".PP" || line == ".TP" || line == ".br";
      CHECK(known);
    }
    CHECK(line.front() != '\'');
  }
}

TEST_CASE("groff formats the manual page without a warning") {
  errand::test::TempDir dir;
  const auto page = dir / "errand.1";
  errand::test::write_file(page, man_page());
  // -ww turns every warning on; -z formats and throws the output away, so only the warnings
  // (on stderr) remain. groff-base is installed by scripts/setup.
  const auto r =
      errand::test::run_to_end({"/usr/bin/groff", "-man", "-Tutf8", "-ww", "-z", page.string()},
                               {"PATH=/usr/bin:/bin"}, dir.path());
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  // And rendered, the page reads as text a person can read: every synopsis is there (lines long
  // enough for the longest, and no hyphenation, so none is broken in two).
  const auto text = errand::test::run_to_end(
      {"/usr/bin/groff", "-man", "-Tutf8", "-rLL=300n", "-rHY=0", "-P-cbu", page.string()},
      {"PATH=/usr/bin:/bin"}, dir.path());
  REQUIRE(text.exit_code == 0);
  for (const auto& row : cli::cli_commands())
    CHECK_THAT(text.out, ContainsSubstring("errand " + std::string(row.synopsis)));
}
