// The probe on this host, and the test hook that hides a feature to show its gap.

#include <sys/wait.h>

#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "common/human_size.hpp"
#include "plugins/sandbox-bailey/common/host_features.hpp"
#include "tests/live/bailey/live_harness.hpp"
#include "tests/support/scoped_env.hpp"
#include "tests/support/test_paths.hpp"

using namespace bailey_live;

namespace {

std::string all_gaps(const errand::sdk::EnforcementReport& r) {
  std::string out;
  for (const auto& g : r.gaps) out += g.guarantee + ": " + g.reason + "\n";
  return out;
}

std::string run_command(const std::string& command, int& status) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  status = ::pclose(pipe);
  return out;
}

}  // namespace

TEST_CASE("on this host every configured guarantee is enforced", "[live]") {
  require_full_host();
  Harness h;
  const auto report = h.backend().probe(h.policy());
  INFO(all_gaps(report));
  CHECK(report.gaps.empty());
  CHECK(report.backend == "bailey");
  std::string enforced;
  for (const auto& e : report.enforced) enforced += e + "\n";
  CHECK(contains(enforced, "Landlock ABI"));
  CHECK(contains(enforced, "seccomp"));
  CHECK(contains(enforced, "127.0.0.1:3128"));
  // The default memory limit, a share of this host, as the report spells a size.
  CHECK(contains(enforced, "memory " + errand::common::config_size(h.policy().limits.memory_bytes) +
                               " per session"));
  // This kernel (5.12 or later) has mount_setattr, so read-only holds below every bind.
  CHECK(contains(enforced, "with every mount below it (mount_setattr)"));
  CHECK(contains(enforced, "sockets: only the unix, IPv4, IPv6 and netlink families"));
}

TEST_CASE("hiding a feature turns it into a gap that says what is not enforced", "[live]") {
  require_full_host();
  Harness h;
  errand::test::ScopedEnv hide(errand::bailey::kHideVariable, "landlock,cgroup");
  const auto report = h.backend().probe(h.policy());
  const auto gaps = all_gaps(report);
  INFO(gaps);
  REQUIRE(report.gaps.size() == 2);
  CHECK(contains(gaps, "filesystem access held to the policy by Landlock"));
  CHECK(contains(gaps, "per-session memory " +
                           errand::common::config_size(h.policy().limits.memory_bytes) + ", "));
  CHECK(contains(gaps, " cpus and 512 processes limits are not applied"));
  CHECK(contains(gaps, "hidden by the test hook ERRAND_BAILEY_HIDE"));
}

TEST_CASE("the hook only removes: a session still gets Landlock while it is hidden", "[live]") {
  require_full_host();
  Harness h;
  errand::test::ScopedEnv hide(errand::bailey::kHideVariable, "landlock");
  const auto r = h.run(h.spec({"kill", "1", "15"}));
  CHECK(contains(r.out, "errno=EPERM"));
}

TEST_CASE("errand-bailey doctor reports this host and exits 0", "[live]") {
  require_full_host();
  int status = -1;
  const auto launcher =
      (errand::test::build_path(ERRAND_BAILEY_PLUGIN).parent_path() / "errand-bailey").string();
  const auto out = run_command(launcher + " doctor", status);
  INFO(out);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(contains(out, "landlock: ABI"));
  CHECK(contains(out, "user namespaces: yes"));
  CHECK(contains(out, "Everything errand-bailey uses is available on this host."));
  const auto hidden = run_command("ERRAND_BAILEY_HIDE=userns " + launcher + " doctor", status);
  CHECK(contains(hidden, "user namespaces: no"));
  CHECK_FALSE(contains(hidden, "Everything errand-bailey uses"));
}

TEST_CASE("a hidden gap makes errand run exit 3 under requireFullEnforcement",
          "[live][errand-run]"
          "[key:plugins.path]") {
  require_full_host();
  const fs::path errand = errand::test::build_path(ERRAND_EXECUTABLE);
  REQUIRE(fs::exists(errand));
  TempRoot root;
  fs::create_directories(root.path() / "projects");
  fs::create_directories(root.path() / "state");
  const auto config = root.path() / "config.json";
  std::ofstream(config) << R"({
  "projectRoot": ")" << (root.path() / "projects").string()
                        << R"(",
  "stateDir": ")" << (root.path() / "state").string()
                        << R"(",
  "plugins": {"path": [")"
                        << errand::test::build_path(ERRAND_BAILEY_PLUGIN).parent_path().string()
                        << R"("]},
  "chat": {"token": "live-test-token-not-real", "channelId": "1", "allowedUserIds": ["*"]},
  "agent": {"provider": "local", "providers": {"local": {"kind": "openai", "credential": "not-needed",
            "credentialName": "LOCAL_KEY", "baseUrl": "https://127.0.0.1:9/v1"}}},
  "sandbox": {"backend": "bailey"}
})";
  int status = -1;
  const auto out = run_command("ERRAND_BAILEY_HIDE=cgroup ERRAND_CONFIG=" + config.string() + " " +
                                   errand.string() + " run 2>&1",
                               status);
  INFO(out);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
  CHECK(contains(out, "cgroup"));
}
