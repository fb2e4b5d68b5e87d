// The tools directory (LaunchSpec::tools_dir) in a real incus session: copied where the project
// may mount it, a read-only device at /errand/tools, first on PATH; delegate runs there and the
// mount cannot be written, by the agent or the guest's root. Without it there is no delegate.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "tests/live/incus/live_incus_daemon.hpp"
#include "tests/support/test_paths.hpp"

using namespace errand::incus::live;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("an incus session finds delegate in /errand/tools, runs it, cannot write there",
          "[live]") {
  Daemon daemon;
  auto spec = daemon.spec({"/bin/sh", "-c",
                           "command -v delegate; delegate --help >/dev/null; echo help=$?; "
                           "touch /errand/tools/planted 2>/dev/null; echo write=$?; "
                           "sudo -n touch /errand/tools/planted 2>/dev/null; echo root=$?"});
  spec.tools_dir = errand::test::build_path(ERRAND_TOOLS_DIR);
  daemon.probe(spec.policy);
  const auto ended = run_to_end(daemon, std::move(spec));
  INFO(ended.out << ended.err << ended.exit.detail);
  CHECK(ended.out == "/errand/tools/delegate\nhelp=0\nwrite=1\nroot=1\n");
  CHECK(ended.exit.exit_code == 0);
}

TEST_CASE("an incus session without a tools directory has no delegate", "[live]") {
  Daemon daemon;
  auto spec = daemon.spec({"/bin/sh", "-c", "command -v delegate || echo no-delegate"});
  daemon.probe(spec.policy);
  const auto ended = run_to_end(daemon, std::move(spec));
  INFO(ended.out << ended.err << ended.exit.detail);
  CHECK_THAT(ended.out, ContainsSubstring("no-delegate"));
}
