#include "core/daemon/agent_install_report.hpp"
#include "core/daemon/enforcement_report.hpp"
#include "tests/support/temp_dir.hpp"

#include <sys/stat.h>
#include <boost/json/array.hpp>
#include <catch2/catch_test_macros.hpp>

using namespace errand;

TEST_CASE("the report states every gap and calls writable grants out separately") {
  sdk::EnforcementReport r;
  r.backend = "bailey";
  r.summary = "sessions run as confined host processes";
  r.enforced = {"filesystem: Landlock ABI 7"};
  r.notes = {"no single file may exceed 1g, enforced as an rlimit"};
  r.granted = {{"/opt/tools", true, false, true}, {"/var/cache/shared", true, true, false}};
  r.env_names = {"CARGO_HOME"};
  r.gaps = {
      {"per-session memory, cpu and process limits", "this host reports no cgroup delegation"}};
  const auto text = daemon::render_enforcement_report(r);
  CHECK(text.find("sandbox backend: bailey") != std::string::npos);
  CHECK(text.find("1 guarantee(s) cannot be enforced on this host") != std::string::npos);
  CHECK(text.find("this host reports no cgroup delegation") != std::string::npos);
  CHECK(text.find("writable grant: sessions can change /var/cache/shared") != std::string::npos);
  CHECK(text.find("writable grant: sessions can change /opt/tools") == std::string::npos);
  CHECK(text.find("CARGO_HOME") != std::string::npos);

  const auto refusal = daemon::render_gap_refusal(r);
  CHECK(refusal.find("per-session memory, cpu and process limits") != std::string::npos);
  CHECK(refusal.find("requireFullEnforcement") != std::string::npos);
}

TEST_CASE("a report without gaps says everything is enforced") {
  sdk::EnforcementReport r;
  r.backend = "bailey";
  CHECK(daemon::render_enforcement_report(r).find("every configured guarantee is enforced") !=
        std::string::npos);
}

TEST_CASE("a report with no policyExtra grant says nothing is granted") {
  sdk::EnforcementReport r;
  r.backend = "bailey";
  CHECK(daemon::render_enforcement_report(r).find("granted by sandbox.policyExtra: nothing") !=
        std::string::npos);
  r.granted = {{"/srv/out", false, true, false}};
  const auto text = daemon::render_enforcement_report(r);
  CHECK(text.find("granted by sandbox.policyExtra: nothing") == std::string::npos);
  CHECK(text.find("granted by sandbox.policyExtra: /srv/out (write)") != std::string::npos);
}

TEST_CASE("the start-up report names the agent's program and the install directories granted") {
  errand::test::TempDir dir;
  const auto program = dir / "opt" / "agent" / "bin" / "my-agent";
  errand::test::write_file(program, "#!/bin/sh\n");
  ::chmod(program.c_str(), 0755);
  boost::json::object config{
      {"agent", boost::json::object{{"command", boost::json::array{program.string(), "--acp"}}}}};
  auto report = daemon::agent_install_report(config, dir / "etc" / "config.json");
  REQUIRE(report.has_value());
  CHECK(report->find("agent program: " + program.string() + "\n") != std::string::npos);
  CHECK(report->find("agent install directory, readable and executable in every session: " +
                     program.parent_path().string() + "\n") != std::string::npos);

  // The configuration beside the agent would be readable in every session: refused.
  auto refused = daemon::agent_install_report(config, program.parent_path() / "config.json");
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().message.find("holds the configuration file") != std::string::npos);

  // Not installed yet: said, and left to fail each session with the reason.
  config["agent"].as_object()["command"] = boost::json::array{"errand-no-such-agent"};
  auto missing = daemon::agent_install_report(config, dir / "etc" / "config.json");
  REQUIRE(missing.has_value());
  CHECK(missing->find("note: the agent program \"errand-no-such-agent\" is not on the daemon's "
                      "PATH") != std::string::npos);
}
