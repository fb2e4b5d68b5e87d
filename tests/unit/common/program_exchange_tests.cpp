// common/program_exchange, what the daemon reads its plugins through: the child gets its input on
// stdin and answers on stdout with its real exit code; one that hangs, floods its output or
// cannot be run is an error saying which, and is never left running.

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "common/program_exchange.hpp"

using Catch::Matchers::ContainsSubstring;
using errand::common::exchange_with_program;
using errand::common::ProgramExchange;
using namespace std::chrono_literals;

namespace {

ProgramExchange shell_exchange(const std::string& script) {
  ProgramExchange exchange;
  exchange.program = "/bin/sh";
  exchange.args = {"-c", script};
  return exchange;
}

bool process_exists(pid_t pid) {
  return ::kill(pid, 0) == 0;
}

}  // namespace

TEST_CASE("the program reads its input and its answer and exit code come back") {
  auto exchange = shell_exchange("tr a-z A-Z; echo said >&2; exit 7");
  // Larger than a pipe's buffer, so writing and reading must go on together.
  exchange.input = std::string(200000, 'x') + "end";
  const auto answer = exchange_with_program(exchange);
  REQUIRE(answer.has_value());
  CHECK(answer->exit_code == 7);
  CHECK(answer->out == std::string(200000, 'X') + "END");
  CHECK(answer->err_tail == "said\n");
}

TEST_CASE("a program that stops reading its input early still answers") {
  auto exchange = shell_exchange("head -c 3; echo; exit 0");
  exchange.input = std::string(1 << 20, 'y');
  const auto answer = exchange_with_program(exchange);
  REQUIRE(answer.has_value());
  CHECK(answer->exit_code == 0);
  CHECK(answer->out == "yyy\n");
}

TEST_CASE("a signal that ends it is 128 plus the signal") {
  const auto answer = exchange_with_program(shell_exchange("kill -TERM $$"));
  REQUIRE(answer.has_value());
  CHECK(answer->exit_code == 128 + SIGTERM);
}

TEST_CASE("a program past its deadline is killed and is an error") {
  auto exchange = shell_exchange("exec sleep 30");
  exchange.deadline = 300ms;
  const auto started = std::chrono::steady_clock::now();
  const auto answer = exchange_with_program(exchange);
  REQUIRE_FALSE(answer.has_value());
  CHECK_THAT(answer.error().message, ContainsSubstring("did not answer within 300 ms"));
  CHECK(std::chrono::steady_clock::now() - started < 5s);
}

TEST_CASE("a program whose output passes the bound is killed and is an error") {
  auto exchange = shell_exchange("exec yes");
  exchange.max_output = 100000;
  const auto answer = exchange_with_program(exchange);
  REQUIRE_FALSE(answer.has_value());
  CHECK_THAT(answer.error().message, ContainsSubstring("wrote more than 100000 bytes"));
}

TEST_CASE("a program that closes its output but stays is killed at the deadline") {
  auto exchange = shell_exchange("exec >&- 2>&-; exec sleep 30");
  exchange.deadline = 300ms;
  const auto answer = exchange_with_program(exchange);
  REQUIRE_FALSE(answer.has_value());
  CHECK_THAT(answer.error().message, ContainsSubstring("did not exit within 300 ms"));
}

TEST_CASE("with share_stderr the program writes to this process's stderr, whole") {
  // This process's stderr, for the length of the exchange, is a file the test reads back.
  const std::string file = "/tmp/errand-exchange-stderr-" + std::to_string(::getpid());
  const int captured = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  REQUIRE(captured >= 0);
  const int saved = ::dup(STDERR_FILENO);
  REQUIRE(saved >= 0);
  ::dup2(captured, STDERR_FILENO);
  auto exchange =
      shell_exchange("echo answer; head -c 6000 /dev/zero | tr '\\0' e >&2; echo end >&2");
  exchange.share_stderr = true;
  const auto answer = exchange_with_program(exchange);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::close(captured);
  REQUIRE(answer.has_value());
  CHECK(answer->out == "answer\n");
  CHECK(answer->err_tail.empty());
  std::ifstream written(file);
  const std::string text((std::istreambuf_iterator<char>(written)),
                         std::istreambuf_iterator<char>());
  std::remove(file.c_str());
  // More than the 4 KiB a captured stderr keeps: nothing of it was cut.
  CHECK(text == std::string(6000, 'e') + "end\n");
}

TEST_CASE("a program that is not there is an error naming it") {
  ProgramExchange exchange;
  exchange.program = "/nonexistent/errand-helper";
  const auto answer = exchange_with_program(exchange);
  REQUIRE_FALSE(answer.has_value());
  CHECK_THAT(answer.error().message, ContainsSubstring("/nonexistent/errand-helper"));
}

TEST_CASE("no child is left behind by a killed exchange") {
  // The error carries no output, so the child leaves its pid in a file.
  auto exchange = shell_exchange("echo $$ > \"$0\"; exec sleep 30");
  const std::string pid_file = "/tmp/errand-exchange-" + std::to_string(::getpid());
  exchange.args.push_back(pid_file);
  exchange.deadline = 300ms;
  REQUIRE_FALSE(exchange_with_program(exchange).has_value());
  FILE* file = std::fopen(pid_file.c_str(), "r");
  REQUIRE(file != nullptr);
  int pid = 0;
  REQUIRE(std::fscanf(file, "%d", &pid) == 1);
  std::fclose(file);
  std::remove(pid_file.c_str());
  CHECK_FALSE(process_exists(pid));
}
