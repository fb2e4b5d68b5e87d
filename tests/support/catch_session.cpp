#include "tests/support/catch_session.hpp"

#include <catch2/catch_session.hpp>

namespace errand::test {

int run_catch_session(int argc, char* argv[]) {
  Catch::Session session;
  if (const int code = session.applyCommandLine(argc, argv); code != 0) return code;
  auto& config = session.configData();
  config.warnings =
      static_cast<Catch::WarnAbout::What>(config.warnings | Catch::WarnAbout::NoAssertions);
  return session.run();
}

}  // namespace errand::test
