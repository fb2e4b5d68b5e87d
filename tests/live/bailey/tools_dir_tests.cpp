// The tools directory (LaunchSpec::tools_dir) in a real bailey sandbox: at its host path, first
// on PATH, delegate found and run there, and nothing written into it, whatever the agent tries.
// Without it the session has no delegate at all.

#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <string>

#include "tests/live/bailey/live_harness.hpp"
#include "tests/support/program_copy.hpp"
#include "tests/support/test_paths.hpp"

using namespace bailey_live;

namespace {

// A copy of the built program outside /tmp, since bailey refuses a tools directory there and a
// fresh clone's build tree may be under it.
const std::string kTools =
    errand::test::copy_outside_tmp(errand::test::build_path(ERRAND_TOOLS_DIR) / "delegate",
                                   "errand-tools")
        .parent_path()
        .string();

}  // namespace

TEST_CASE("delegate is found on PATH in the tools directory and runs", "[live]") {
  require_full_host();
  Harness h;
  auto spec = h.spec({});
  spec.tools_dir = kTools;
  spec.argv = {"/bin/sh", "-c",
               "command -v delegate; delegate --help >/dev/null; echo help=$?; "
               "echo \"$PATH\" | cut -d: -f1"};
  const auto r = h.run(spec);
  INFO(r.launch_error << r.err);
  REQUIRE(r.launched);
  CHECK(r.exit.exit_code == 0);
  CHECK(r.out == kTools + "/delegate\nhelp=0\n" + kTools + "\n");
}

TEST_CASE("the tools directory cannot be written", "[live]") {
  require_full_host();
  Harness h;
  auto spec = h.spec({"write", kTools + "/planted"});
  spec.tools_dir = kTools;
  const auto r = h.run(spec);
  INFO(r.out << r.launch_error << r.err);
  REQUIRE(r.launched);
  CHECK(r.exit.exit_code == 1);
  CHECK((contains(r.out, "errno=EROFS") || contains(r.out, "errno=EACCES")));
  CHECK_FALSE(std::filesystem::exists(kTools + "/planted"));
}

TEST_CASE("without a tools directory there is no delegate", "[live]") {
  require_full_host();
  Harness h;
  auto spec = h.spec({});
  spec.argv = {"/bin/sh", "-c", "command -v delegate || echo no-delegate"};
  const auto r = h.run(spec);
  INFO(r.launch_error << r.err);
  REQUIRE(r.launched);
  CHECK(r.out == "no-delegate\n");
}
