// The planted fault behind "a case that checks nothing fails": a suite built on errand's Catch2
// main with one case that asserts and one that asserts nothing. Never listed to CTest as tests of
// their own; no_assertion_fails.sh runs the binary and expects exactly the second to fail.
#include <catch2/catch_test_macros.hpp>

TEST_CASE("planted: a case that checks something") {
  CHECK(1 + 1 == 2);
}

TEST_CASE("planted: a case that checks nothing") {
  [[maybe_unused]] const int unused = 1 + 1;
}
