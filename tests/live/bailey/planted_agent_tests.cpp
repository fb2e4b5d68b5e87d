// The state directory moves over on resume, and PATH inside starts with /state/home/bin: a
// program an earlier session of the thread planted there must never be what a later one runs.

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "tests/live/bailey/live_harness.hpp"

using namespace bailey_live;

TEST_CASE("an agent binary planted in the session's home is not what a later session runs",
          "[live]") {
  require_full_host();
  Harness h;
  const std::string session = "planted-" + std::to_string(::getpid());
  auto plant = h.spec({}, session);
  plant.argv = {"/bin/sh", "-c",
                "mkdir -p /state/home/bin && printf '#!/bin/sh\\necho PLANTED\\n' > "
                "/state/home/bin/escape_probe && chmod 755 /state/home/bin/escape_probe && "
                "/state/home/bin/escape_probe"};
  const auto planted = h.run(plant);
  INFO(planted.out << planted.err << planted.launch_error);
  REQUIRE(planted.launched);
  // The plant works as a program: only how the agent is found can keep it from running.
  REQUIRE(contains(planted.out, "PLANTED"));

  // The resumed session: the same state directory, the agent named as the daemon names it.
  const auto resumed = h.run(h.spec({"whoami"}, session));
  INFO(resumed.out << resumed.err << resumed.launch_error);
  REQUIRE(resumed.launched);
  CHECK_FALSE(contains(resumed.out, "PLANTED"));
  CHECK(contains(resumed.out, "uid=0 home=/state/home"));
  CHECK(resumed.exit.exit_code == 0);
}
