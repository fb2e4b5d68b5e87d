// The hidden scenario behind the sanitized run's planted fault (planted/fails_the_run.sh): it
// passes only where no sanitizer is watching, so nothing but that test runs it.
#include <catch2/catch_test_macros.hpp>

#include "tests/e2e/e2e_harness.hpp"
#include "tests/support/test_paths.hpp"

namespace errand::e2e {

TEST_CASE("a daemon whose plugin path holds a plugin that reads freed memory as it loads",
          "[.][planted-sanitizer]") {
  E2eHarness h;
  h.set("plugins.path",
        boost::json::array{errand::test::build_path("tests/planted-plugins").string()});
  h.start();
  const auto thread = h.post("say hello");
  CHECK(!thread.empty());
}

}  // namespace errand::e2e
