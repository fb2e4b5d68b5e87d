#pragma once

// The Catch2 session every suite's main runs: the command line as given, with -w NoAssertions
// turned on, so a test case (or leaf section) that asserts nothing fails, under ctest and when the
// binary is run by hand alike.

namespace errand::test {

int run_catch_session(int argc, char* argv[]);

}  // namespace errand::test
