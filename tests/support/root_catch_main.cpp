// The main of the Catch2 suites that must stay root: they test what only root may do (creating
// an account, handing a cgroup subtree to one). Started as anyone else they fail, saying why,
// rather than skip.
#include <unistd.h>

#include <catch2/catch_session.hpp>
#include <cstdio>

int main(int argc, char* argv[]) {
  if (::geteuid() != 0) {
    std::fprintf(stderr,
                 "these tests must run as root (they create accounts, cgroups and files only root "
                 "may); scripts/test runs them as root\n");
    return 2;
  }
  return Catch::Session().run(argc, argv);
}
