#include "tests/unit/daemon/daemon_harness.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace errand::test;

TEST_CASE("errand --version prints the version") {
  DaemonHarness h;
  const auto r = h.run({"--version"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == std::string("errand ") + ERRAND_VERSION + "\n");
}

TEST_CASE("errand help lists the commands and the exit codes") {
  DaemonHarness h;
  const auto r = h.run({"help"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("run") != std::string::npos);
  CHECK(r.out.find("plugins list") != std::string::npos);
  CHECK(r.out.find("4 another daemon") != std::string::npos);
}

TEST_CASE("an unknown command is refused with exit 2") {
  DaemonHarness h;
  const auto r = h.run({"serve"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown command \"serve\"") != std::string::npos);
}

TEST_CASE("errand plugins list shows the fixture plugins as loaded, with their ABI") {
  DaemonHarness h;
  const auto r = h.run({"plugins", "list"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("sandbox-fixture") != std::string::npos);
  CHECK(r.out.find("chat-fixture") != std::string::npos);
  CHECK(r.out.find("loaded") != std::string::npos);
  CHECK(r.out.find("1.0") != std::string::npos);
}

TEST_CASE("errand config check accepts a valid file and refuses a broken one") {
  DaemonHarness h;
  h.write_config(h.config_text());
  CHECK(h.run({"config", "check"}).exit_code == 0);
  h.write_config("{ \"chat\": ");
  const auto r = h.run({"config", "check"});
  CHECK(r.exit_code == 2);
  CHECK(!r.err.empty());
}
