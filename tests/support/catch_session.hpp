#pragma once

// The Catch2 session every suite's main runs: the command line as given, and a test case (or
// leaf section) that asserts nothing fails, as it does under ctest (-w NoAssertions), so a case
// run by hand cannot pass without checking anything either.

namespace errand::test {

int run_catch_session(int argc, char* argv[]);

}  // namespace errand::test
