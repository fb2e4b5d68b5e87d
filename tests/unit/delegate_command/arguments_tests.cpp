// The delegate command's command line: one artefact at most, a question always, options anywhere
// before --.

#include <catch2/catch_test_macros.hpp>

#include "tools/delegate/arguments.hpp"

using namespace errand::delegate;

namespace {

Invocation accepted(const std::vector<std::string>& args) {
  const auto parsed = parse_arguments(args);
  const auto* refused = std::get_if<UsageError>(&parsed);
  INFO((refused ? refused->sentence : std::string()));
  REQUIRE(std::holds_alternative<Invocation>(parsed));
  return std::get<Invocation>(parsed);
}

std::string refused(const std::vector<std::string>& args) {
  const auto parsed = parse_arguments(args);
  REQUIRE(std::holds_alternative<UsageError>(parsed));
  return std::get<UsageError>(parsed).sentence;
}

}  // namespace

TEST_CASE("the question is every other argument joined with spaces", "[delegate]") {
  const auto in = accepted({"which", "test", "failed?"});
  CHECK(in.question == "which test failed?");
  CHECK_FALSE(in.file);
}

TEST_CASE("the --file option names the artefact, before or after the question", "[delegate]") {
  CHECK(accepted({"--file", "build.log", "why?"}).file == "build.log");
  CHECK(accepted({"why", "--file", "build.log"}).file == "build.log");
  CHECK(accepted({"--file=build.log", "why?"}).file == "build.log");
  CHECK(accepted({"why", "--file", "build.log"}).question == "why");
}

TEST_CASE("standard input is named by --file - or a bare -", "[delegate]") {
  CHECK_FALSE(accepted({"--file", "-", "why?"}).file);
  CHECK_FALSE(accepted({"-", "why?"}).file);
}

TEST_CASE("after -- every argument is question text, dashes included", "[delegate]") {
  const auto in = accepted({"--file", "x", "--", "--file", "-O2", "-"});
  CHECK(in.question == "--file -O2 -");
  CHECK(in.file == "x");
}

TEST_CASE("the options --help and -h ask for the help", "[delegate]") {
  CHECK(std::holds_alternative<HelpRequested>(parse_arguments({"--help"})));
  CHECK(std::holds_alternative<HelpRequested>(parse_arguments({"why", "-h"})));
  CHECK(help_text().find("cheaper model") != std::string::npos);
  CHECK(help_text().find("delegate --file build.log") != std::string::npos);
}

TEST_CASE("no question is refused", "[delegate]") {
  CHECK(refused({}) == "delegate needs a question about the artefact");
  CHECK(refused({"--file", "x"}) == "delegate needs a question about the artefact");
  CHECK(refused({"--file", "x", " ", ""}) == "delegate needs a question about the artefact");
}

TEST_CASE("two artefacts are refused, naming both", "[delegate]") {
  CHECK(refused({"--file", "a.log", "--file", "b.log", "q"}) ==
        "delegate takes one artefact, and this names two (\"a.log\" and \"b.log\"); ask about "
        "each in its own call");
  CHECK(refused({"--file", "a.log", "-", "q"}) ==
        "delegate takes one artefact, and this names two (\"a.log\" and standard input); ask "
        "about each in its own call");
  CHECK(refused({"-", "--file", "-", "q"}).find("names two") != std::string::npos);
}

TEST_CASE("a --file without a path, an unknown option and an over-long question are refused",
          "[delegate]") {
  CHECK(refused({"q", "--file"}) == "--file needs the path of the artefact");
  CHECK(refused({"--file=", "q"}) == "--file needs the path of the artefact");
  CHECK(refused({"-x", "q"}) ==
        "delegate has no option -x; a question that starts with - goes after --");
  CHECK(refused({std::string(kQuestionMaxBytes + 1, 'a')}) ==
        "the question is 4097 bytes, over the limit of 4096; ask something shorter");
  CHECK(accepted({std::string(kQuestionMaxBytes, 'a')}).question.size() == kQuestionMaxBytes);
}
