// Which file runs as the agent: found on the host by the daemon, never by a PATH search inside,
// and never a file the session itself can write.

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>

#include "plugins/sandbox-bailey/impl/agent_program.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text_contains.hpp"

using namespace errand::bailey;
namespace fs = std::filesystem;

namespace {

void executable(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "#!/bin/sh\n";
  ::chmod(file.c_str(), 0755);
}

using errand::test::contains;

}  // namespace

TEST_CASE("a bare agent name is found in the agent's host directories, not the session's home") {
  errand::test::TempDir d;
  const auto install = d.path() / "opt" / "agent" / "bin";
  executable(install / "my-agent");
  // What a planted binary would look like on the host: the session's home bin.
  executable(d.path() / "state" / "home" / "bin" / "my-agent");
  errand::sdk::LaunchSpec spec;
  spec.state_dir = d.path() / "state";
  spec.argv = {"my-agent", "--acp"};
  spec.agent_dirs = {install};
  auto found = locate_agent_program(spec);
  REQUIRE(found.has_value());
  CHECK(*found == (install / "my-agent").string());

  spec.argv = {"/usr/bin/env"};
  CHECK(locate_agent_program(spec).value() == "/usr/bin/env");

  spec.argv = {"no-such-agent-here"};
  auto missing = locate_agent_program(spec);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().kind == errand::sdk::Error::Kind::not_found);
  CHECK(contains(missing.error().message, install.string() + ":"));
  CHECK_FALSE(contains(missing.error().message, "/state/home/bin"));
}

TEST_CASE("an agent program that is relative or where the session writes is refused") {
  errand::sdk::LaunchSpec spec;
  spec.policy.extra_write = {"/var/cache/shared/"};
  for (const char* refused : {"kage", "bin/kage", "/state/home/bin/kage", "/workspace/kage",
                              "/tmp/kage", "/dev/shm/kage", "/var/cache/shared/bin/kage"}) {
    INFO(refused);
    auto checked = check_agent_program(refused, spec);
    REQUIRE_FALSE(checked.has_value());
    CHECK(checked.error().kind == errand::sdk::Error::Kind::refused);
  }
  CHECK(contains(check_agent_program("/state/home/bin/kage", spec).error().message,
                 "which the session can write"));
  CHECK(check_agent_program("/opt/kage/bin/kage", spec).has_value());
  CHECK(check_agent_program("/var/cache/shared-not/kage", spec).has_value());
}
