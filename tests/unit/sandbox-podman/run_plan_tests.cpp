#include "plugins/sandbox-podman/impl/run_plan.hpp"

#include <algorithm>
#include <catch2/catch_test_macros.hpp>

#include "common/broker_relay/broker_relay.hpp"
#include "core/sandbox/policy_from_config.hpp"

using namespace errand::podman;
namespace sdk = errand::sdk;

namespace {

sdk::LaunchSpec spec_with(sdk::NetworkMode network) {
  auto policy = errand::sandbox::policy_from_config(boost::json::object{});
  REQUIRE(policy.has_value());
  sdk::LaunchSpec spec;
  spec.session_id = "s1";
  spec.project_dir = "/srv/projects/p";
  spec.state_dir = "/srv/state/s1";
  spec.argv = {"kage", "acp"};
  spec.env = {{"ANTHROPIC_API_KEY", "errand-session-0123456789abcdef"},
              {"HTTPS_PROXY", "http://user:pw@127.0.0.1:3128"}};
  spec.policy = *policy;
  spec.policy.network = network;
  spec.policy.env_extra = {{"RUST_LOG", "info"}};
  return spec;
}

RunHost host(bool limits_apply) {
  return RunHost{"localhost/errand-agent:latest",
                 limits_apply,
                 "/var/lib/errand/podman/seccomp.json",
                 1048576,
                 daemon_label("/var/lib/errand"),
                 "/usr/lib/errand/errand-relay",
                 {}};
}

bool has(const std::vector<std::string>& args, const std::string& item) {
  return std::find(args.begin(), args.end(), item) != args.end();
}

// The value that follows flag, for each time flag appears.
std::vector<std::string> values_of(const std::vector<std::string>& args, const std::string& flag) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == flag) out.push_back(args[i + 1]);
  return out;
}

}  // namespace

TEST_CASE("a session's podman run holds it to the policy and inherits nothing") {
  const auto spec = spec_with(sdk::NetworkMode::none);
  auto plan = podman_run_plan(spec, host(true));
  REQUIRE(plan.has_value());
  const auto& a = plan->args;
  for (const char* flag : {"--rm", "-i", "--log-driver=passthrough", "--pull=never",
                           "--userns=keep-id", "--read-only", "--read-only-tmpfs=false",
                           "--cap-drop=all", "--network=none", "--unsetenv-all", "--no-hosts"})
    CHECK(has(a, flag));
  CHECK_FALSE(has(a, "-t"));
  // errand-relay is PID 1: podman's init would be a process outside errand's filter.
  CHECK_FALSE(has(a, "--init"));
  CHECK(values_of(a, "--name") == std::vector<std::string>{"errand-s1"});
  CHECK(values_of(a, "--label") == std::vector<std::string>{"errand.session=s1",
                                                            "errand.system=errand",
                                                            daemon_label("/var/lib/errand")});
  CHECK(daemon_label("/var/lib/errand").rfind("errand.daemon=", 0) == 0);
  CHECK(daemon_label("/var/lib/errand") != daemon_label("/var/lib/errand-2"));
  CHECK(
      values_of(a, "--security-opt") ==
      std::vector<std::string>{"no-new-privileges", "seccomp=/var/lib/errand/podman/seccomp.json"});
  CHECK(values_of(a, "-v") ==
        std::vector<std::string>{"/srv/projects/p:/workspace", "/srv/state/s1:/state",
                                 "/usr/lib/errand/errand-relay:/run/errand/errand-relay:ro"});
  CHECK(values_of(a, "--tmpfs") ==
        std::vector<std::string>{"/tmp:rw,exec,nosuid,nodev,mode=1777,size=" +
                                 std::to_string(spec.policy.limits.tmp_bytes)});
  CHECK(values_of(a, "--shm-size") ==
        std::vector<std::string>{std::to_string(spec.policy.limits.shm_bytes)});
  // The image, then errand-relay (which loads errand's filter and execs the agent, having no
  // broker to relay to), then the agent's command, last.
  REQUIRE(a.size() >= 5);
  CHECK(std::vector<std::string>(a.end() - 5, a.end()) ==
        std::vector<std::string>{"localhost/errand-agent:latest", "/run/errand/errand-relay",
                                 "--no-broker", "kage", "acp"});
}

TEST_CASE("no session runs without errand-relay, which loads errand's syscall filter") {
  auto h = host(true);
  h.relay_program.clear();
  const auto refused = podman_run_plan(spec_with(sdk::NetworkMode::none), h);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().message.find("errand-relay") != std::string::npos);
}

TEST_CASE("secrets are named on the command line, their values only in podman's environment") {
  auto plan = podman_run_plan(spec_with(sdk::NetworkMode::none), host(true));
  REQUIRE(plan.has_value());
  for (const auto& arg : plan->args) {
    CHECK(arg.find("errand-session-0123456789abcdef") == std::string::npos);
    CHECK(arg.find("user:pw") == std::string::npos);
  }
  const auto envs = values_of(plan->args, "--env");
  CHECK(has(envs, "ANTHROPIC_API_KEY"));
  CHECK(has(envs, "HTTPS_PROXY"));
  CHECK(has(envs, "RUST_LOG"));
  // podman needs these names for itself, so the session's values are written out.
  CHECK(has(envs, "HOME=/state/home"));
  CHECK(has(envs, "PATH=/usr/local/bin:/usr/bin:/bin"));
  CHECK(plan->variables == std::vector<std::pair<std::string, std::string>>{
                               {"ANTHROPIC_API_KEY", "errand-session-0123456789abcdef"},
                               {"HTTPS_PROXY", "http://user:pw@127.0.0.1:3128"},
                               {"RUST_LOG", "info"}});
}

TEST_CASE("cgroup limits are passed only where the host applies them; rlimits always") {
  const auto spec = spec_with(sdk::NetworkMode::none);
  auto applied = podman_run_plan(spec, host(true));
  REQUIRE(applied.has_value());
  CHECK(values_of(applied->args, "--memory") ==
        std::vector<std::string>{std::to_string(spec.policy.limits.memory_bytes)});
  CHECK(values_of(applied->args, "--pids-limit") ==
        std::vector<std::string>{std::to_string(spec.policy.limits.pids)});
  auto dropped = podman_run_plan(spec, host(false));
  REQUIRE(dropped.has_value());
  CHECK(values_of(dropped->args, "--memory").empty());
  CHECK(values_of(dropped->args, "--pids-limit").empty());
  CHECK(values_of(dropped->args, "--cpus").empty());
  const auto ulimits = values_of(dropped->args, "--ulimit");
  const auto pids = std::to_string(spec.policy.limits.pids);
  CHECK(has(ulimits, "core=0:0"));
  CHECK(has(ulimits, "nofile=65536:65536"));
  CHECK(has(ulimits, "nproc=" + pids + ":" + pids));
  if (spec.policy.limits.file_max_bytes > 0) {
    const auto f = std::to_string(spec.policy.limits.file_max_bytes);
    CHECK(has(ulimits, "fsize=" + f + ":" + f));
  }
}

TEST_CASE("rootless under cgroup v2, each container's cgroup is made in the delegated subtree") {
  const auto spec = spec_with(sdk::NetworkMode::none);
  auto in_subtree = host(true);
  in_subtree.cgroup_parent = "/system.slice/errand.service";
  auto plan = podman_run_plan(spec, in_subtree);
  REQUIRE(plan.has_value());
  CHECK(values_of(plan->args, "--cgroup-parent") ==
        std::vector<std::string>{"/system.slice/errand.service"});
  // Options, so before the image.
  const auto image = std::find(plan->args.begin(), plan->args.end(), in_subtree.image);
  const auto parent = std::find(plan->args.begin(), plan->args.end(), "--cgroup-parent");
  CHECK(parent < image);
  auto elsewhere = podman_run_plan(spec, host(true));
  REQUIRE(elsewhere.has_value());
  CHECK(values_of(elsewhere->args, "--cgroup-parent").empty());
}

TEST_CASE("nofile is held to podman's own hard limit, which rootless podman cannot raise") {
  auto h = host(false);
  h.nofile_hard = 4096;
  auto plan = podman_run_plan(spec_with(sdk::NetworkMode::none), h);
  REQUIRE(plan.has_value());
  CHECK(has(values_of(plan->args, "--ulimit"), "nofile=4096:4096"));
}

TEST_CASE("egress open: slirp4netns with the host's loopback cut off, and no broker mounts") {
  auto spec = spec_with(sdk::NetworkMode::restricted);
  spec.policy.egress = sdk::EgressMode::open;
  auto plan = podman_run_plan(spec, host(false));
  REQUIRE(plan.has_value());
  const auto& a = plan->args;
  CHECK(has(a, "--network=slirp4netns:allow_host_loopback=false"));
  CHECK_FALSE(has(a, "--network=none"));
  // errand-relay still starts first (it loads errand's filter), but relays to no broker.
  for (const auto& arg : a)
    CHECK(arg.find(errand::broker_relay::kBrokerSocketInside) == std::string::npos);
  CHECK(has(a, errand::broker_relay::kNoBrokerArgument));
}

TEST_CASE("under the broker: no network, the socket and errand-relay read-only, the relay first") {
  auto spec = spec_with(sdk::NetworkMode::restricted);
  spec.policy.egress = sdk::EgressMode::proxy;
  spec.broker_socket = "/srv/state/broker/s1.sock";
  const auto h = host(false);
  auto plan = podman_run_plan(spec, h);
  REQUIRE(plan.has_value());
  const auto& a = plan->args;
  CHECK(has(a, "--network=none"));
  const auto mounts = values_of(a, "-v");
  CHECK(has(mounts, "/srv/state/broker/s1.sock:/run/errand/broker.sock:ro"));
  CHECK(has(mounts, "/usr/lib/errand/errand-relay:/run/errand/errand-relay:ro"));
  // After the image: the relay, the socket it carries connections to, then the agent.
  const auto image = std::find(a.begin(), a.end(), "localhost/errand-agent:latest");
  REQUIRE(image != a.end());
  CHECK(std::vector<std::string>(image + 1, a.end()) ==
        std::vector<std::string>{"/run/errand/errand-relay", "/run/errand/broker.sock", "kage",
                                 "acp"});

  spec.broker_socket.reset();
  CHECK_FALSE(podman_run_plan(spec, h).has_value());
  spec.broker_socket = "/srv/state/broker/s1.sock";
  auto without_relay = h;
  without_relay.relay_program.clear();
  CHECK_FALSE(podman_run_plan(spec, without_relay).has_value());
}

TEST_CASE("a session is started as podman create with the plan's options, then podman start") {
  auto plan = podman_run_plan(spec_with(sdk::NetworkMode::none), host(false));
  REQUIRE(plan.has_value());
  auto created = podman_create_args(*plan);
  REQUIRE(created.size() == plan->args.size());
  CHECK(created[1] == "create");
  CHECK(plan->args[1] == "run");
  created[1] = "run";
  CHECK(created == plan->args);
  CHECK(podman_start_args("s1") == std::vector<std::string>{"--log-level=error", "start",
                                                            "--attach", "--interactive",
                                                            "errand-s1"});
}

TEST_CASE("a tools directory is mounted read-only at the tools mount point, ahead on PATH") {
  auto spec = spec_with(sdk::NetworkMode::none);
  SECTION("given") {
    spec.tools_dir = "/usr/lib/errand/tools";
    auto plan = podman_run_plan(spec, host(true));
    REQUIRE(plan.has_value());
    CHECK(has(values_of(plan->args, "-v"), "/usr/lib/errand/tools:/run/errand/tools:ro"));
    CHECK(
        has(values_of(plan->args, "--env"), "PATH=/run/errand/tools:/usr/local/bin:/usr/bin:/bin"));
  }
  SECTION("absent: no mount, and PATH as always") {
    auto plan = podman_run_plan(spec, host(true));
    REQUIRE(plan.has_value());
    for (const auto& mount : values_of(plan->args, "-v"))
      CHECK(mount.find("tools") == std::string::npos);
    CHECK(has(values_of(plan->args, "--env"), "PATH=/usr/local/bin:/usr/bin:/bin"));
  }
}
