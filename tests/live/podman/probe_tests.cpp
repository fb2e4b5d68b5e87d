#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>
#include <catch2/catch_test_macros.hpp>

#include "core/sandbox/policy_from_config.hpp"
#include "plugins/sandbox-podman/impl/host_probe.hpp"
#include "plugins/sandbox-podman/impl/image_contract.hpp"
#include "tests/live/podman/live_podman.hpp"

using namespace errand::podman;
using namespace errand::podman::live;
namespace sdk = errand::sdk;

namespace {

sdk::SandboxPolicy defaults() {
  auto p = errand::sandbox::policy_from_config(boost::json::object{});
  REQUIRE(p.has_value());
  return *p;
}

// What the kernel says, not what podman says: cgroup2 mounted at /sys/fs/cgroup is v2.
std::string host_cgroup_version() {
  struct statfs fs {};
  REQUIRE(::statfs("/sys/fs/cgroup", &fs) == 0);
  return fs.f_type == CGROUP2_SUPER_MAGIC ? "v2" : "v1";
}

bool has_gap(const sdk::EnforcementReport& r, const std::string& guarantee) {
  for (const auto& g : r.gaps)
    if (g.guarantee == guarantee) return true;
  return false;
}

std::string gaps_of(const sdk::EnforcementReport& r) {
  std::string out;
  for (const auto& g : r.gaps) out += g.guarantee + " -- " + g.reason + "\n";
  return out;
}

}  // namespace

TEST_CASE("the probe finds rootless podman with errand's runtime, subordinate ids and the image") {
  LivePodman podman;
  const auto facts = gather_host_facts(podman.env, kTestImage);
  INFO(facts.runtime_dir_problem << facts.info_error);
  REQUIRE(facts.info.has_value());
  CHECK(facts.info->rootless);
  // Pinned by errand's containers.conf, so these prove podman read it rather than its defaults.
  CHECK(facts.info->runtime_name == "runc");
  CHECK(facts.info->cgroup_manager == "cgroupfs");
  CHECK(facts.info->event_logger == "file");
  CHECK(facts.info->cgroup_version == host_cgroup_version());
  CHECK(facts.info->subordinate_uids >= 65535);
  CHECK(facts.info->subordinate_gids >= 65535);
  CHECK(facts.image.present);
  REQUIRE(facts.image.contract_label.has_value());
  auto contract = parse_image_contract(*facts.image.contract_label);
  REQUIRE(contract.has_value());
  CHECK(contract->version == kContractVersion);
}

TEST_CASE("the live report has a limit gap exactly when the host is rootless cgroup v1") {
  LivePodman podman;
  const auto r = build_probe_report(gather_host_facts(podman.env, kTestImage), defaults());
  INFO(gaps_of(r));
  CHECK_FALSE(has_gap(r, "every podman guarantee"));
  CHECK_FALSE(has_gap(r, "the session image"));
  CHECK(has_gap(r, "per-session memory limit") == (host_cgroup_version() == "v1"));
  CHECK(has_gap(r, "per-session process limit") == (host_cgroup_version() == "v1"));
}

TEST_CASE("an image that is not in the store is a gap naming it") {
  LivePodman podman;
  const auto facts = gather_host_facts(podman.env, "localhost/errand-no-such-image:latest");
  REQUIRE(facts.info.has_value());
  CHECK(facts.image.lookup_error.empty());
  CHECK_FALSE(facts.image.present);
  const auto r = build_probe_report(facts, defaults());
  INFO(gaps_of(r));
  CHECK(has_gap(r, "the session image"));
}

TEST_CASE("rootless podman runs the test image as this account's own uid, with its exit code") {
  LivePodman podman;
  auto run = run_podman(podman.env,
                        {"--log-level=error", "run", "--rm", "--pull=never", "--network=none",
                         "--userns=keep-id", kTestImage, "sh", "-c", "id -u; exit 7"},
                        kRunTimeout);
  REQUIRE(run.has_value());
  INFO(run->err);
  CHECK(run->exit_code == 7);
  CHECK(run->out == std::to_string(::getuid()) + "\n");
}
