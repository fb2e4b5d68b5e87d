// The tools directory (LaunchSpec::tools_dir) inside a real session container: delegate is found
// on PATH at the tools mount point and runs there (it is static, the image holds none of the
// host's libraries), and the mount cannot be written. Without it there is no delegate at all.
// And the agent image's own tools: each of its toolchain used inside a session container.

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "tests/live/podman/probe_container.hpp"
#include "tests/live/toolchain/toolchain_check.hpp"
#include "tests/support/test_paths.hpp"

using namespace errand::podman::live;

TEST_CASE("delegate is on PATH at the tools mount point, runs, and the mount is read-only") {
  ProbeContainer c;
  c.spec.tools_dir = errand::test::build_path(ERRAND_TOOLS_DIR);
  const auto out = c.run({"/bin/sh", "-c",
                          "command -v delegate; delegate --help >/dev/null; echo help=$?; "
                          "touch /run/errand/tools/planted 2>/dev/null; echo write=$?"});
  INFO(out.err);
  CHECK(out.exit_code == 0);
  CHECK(out.out == "/run/errand/tools/delegate\nhelp=0\nwrite=1\n");
}

TEST_CASE("without a tools directory the session has no delegate") {
  ProbeContainer c;
  const auto out = c.run({"/bin/sh", "-c", "command -v delegate || echo no-delegate"});
  INFO(out.err);
  CHECK(out.out == "no-delegate\n");
}

TEST_CASE("a podman session has the agent image's toolchain, each tool used inside") {
  ProbeContainer c;
  const auto out = c.run({"/bin/sh", "-c", errand::test::toolchain_script()});
  INFO(out.err);
  errand::test::check_toolchain_output(out.out);
  CHECK(out.exit_code == 0);
}
