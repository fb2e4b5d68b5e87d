#include <catch2/catch_test_macros.hpp>

#include "plugins/sandbox-bailey/common/launcher_protocol.hpp"

using namespace errand::bailey;
using Kind = LauncherEvent::Kind;

TEST_CASE("launcher report lines round-trip and junk is ignored") {
  auto running = parse_launcher_line(format_running(2));
  REQUIRE(running);
  CHECK(running->kind == Kind::running);
  CHECK(running->number == 2);
  auto code = parse_launcher_line(format_exit_code(3));
  REQUIRE(code);
  CHECK(code->kind == Kind::exit_code);
  CHECK(code->number == 3);
  auto sig = parse_launcher_line(format_exit_signal(9));
  REQUIRE(sig);
  CHECK(sig->kind == Kind::exit_signal);
  CHECK(sig->number == 9);
  auto error = parse_launcher_line(format_error("mounting /proc: Permission denied\nsecond"));
  REQUIRE(error);
  CHECK(error->kind == Kind::error);
  CHECK(error->text == "mounting /proc: Permission denied second");
  CHECK_FALSE(parse_launcher_line("exit code x"));
  CHECK_FALSE(parse_launcher_line("running"));
  CHECK_FALSE(parse_launcher_line("hello"));
}
