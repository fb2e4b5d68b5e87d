// The main of the Catch2 suites that must stay root: they test what only root may do (creating
// an account, handing a cgroup subtree to one). Started as anyone else they fail, saying why,
// rather than skip. A case that asserts nothing fails (catch_session.hpp).
#include <unistd.h>

#include <cstdio>

#include "tests/support/catch_session.hpp"

int main(int argc, char* argv[]) {
  if (::geteuid() != 0) {
    std::fprintf(stderr,
                 "these tests must run as root (they create accounts, cgroups and files only root "
                 "may); scripts/test runs them as root\n");
    return 2;
  }
  return errand::test::run_catch_session(argc, argv);
}
