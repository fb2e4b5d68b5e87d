// The main of every Catch2 suite: the tests run as the test account (see test_account.hpp).
#include <catch2/catch_session.hpp>

#include "tests/support/test_account.hpp"
#include "tests/support/test_paths.hpp"

int main(int argc, char* argv[]) {
  errand::test::remember_test_paths();
  return errand::test::run_as_test_account([&] { return Catch::Session().run(argc, argv); });
}
