// The main of every Catch2 suite: the tests run as the test account (see test_account.hpp), and
// a case that asserts nothing fails (catch_session.hpp).
#include "tests/support/catch_session.hpp"
#include "tests/support/test_account.hpp"
#include "tests/support/test_paths.hpp"

int main(int argc, char* argv[]) {
  errand::test::remember_test_paths();
  return errand::test::run_as_test_account(
      [&] { return errand::test::run_catch_session(argc, argv); });
}
