#include "core/daemon/enforcement_report.hpp"

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
