#include "common/setup_steps/step_report.hpp"

#include <catch2/catch_test_macros.hpp>
#include <sstream>

using namespace errand::setup;

TEST_CASE("step lines are recognised by their prefix only") {
  CHECK(parse_step_line("done: made it")->kind == StepLine::Kind::done);
  CHECK(parse_step_line("done: made it")->text == "made it");
  CHECK(parse_step_line("already: there")->kind == StepLine::Kind::already);
  CHECK(parse_step_line("would: make it")->kind == StepLine::Kind::would);
  CHECK_FALSE(parse_step_line("image/build: making the root"));
  CHECK_FALSE(parse_step_line(" done: indented"));
  CHECK_FALSE(parse_step_line("done:no space"));
}

TEST_CASE("a run with no change says nothing changed; one with changes counts them") {
  std::ostringstream out;
  StepReport report(out, false);
  report.already("a");
  CHECK(report.relay("already: b"));
  CHECK_FALSE(report.relay("some other line"));
  CHECK(report.summary() == "nothing changed: every step was already in place");
  report.changed("made c", "make c");
  CHECK(report.relay("done: made d"));
  CHECK(report.summary() == "2 steps changed something, 2 already in place");
  CHECK(out.str() == "already: a\nalready: b\ndone: made c\ndone: made d\n");
}

TEST_CASE("a dry run prints what would be done, and says it changed nothing") {
  std::ostringstream out;
  StepReport report(out, true);
  report.changed("made c", "make c");
  CHECK(report.relay("would: make d"));
  report.already("e");
  CHECK(out.str() == "would: make c\nwould: make d\nalready: e\n");
  CHECK(report.summary() ==
        "dry run, nothing changed: 2 steps would change something, 1 already in place");
}
