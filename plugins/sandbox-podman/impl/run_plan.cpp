#include "plugins/sandbox-podman/impl/run_plan.hpp"

#include "common/broker_relay/broker_relay.hpp"
#include "common/daemon_mark.hpp"
#include "common/session_environment.hpp"

namespace errand::podman {

using sdk::make_error;

namespace {

constexpr const char* kRunVerb = "run";
// Where kRunVerb stands in a plan's args, after the log level.
constexpr std::size_t kVerbIndex = 1;
constexpr const char* kOpenNetwork = "--network=slirp4netns:allow_host_loopback=false";
constexpr const char* kRelayInside = "/run/errand/errand-relay";
// Enough for language servers and build tools, where podman's own hard limit allows it.
constexpr rlim_t kSessionNofile = 65536;

void add(std::vector<std::string>& args, std::initializer_list<std::string> items) {
  args.insert(args.end(), items.begin(), items.end());
}

}  // namespace

std::string container_name(const std::string& session_id) {
  return "errand-" + session_id;
}

std::vector<std::string> podman_create_args(const RunPlan& plan) {
  auto args = plan.args;
  args.at(kVerbIndex) = "create";
  return args;
}

std::vector<std::string> podman_start_args(const std::string& session_id) {
  return {"--log-level=error", "start", "--attach", "--interactive", container_name(session_id)};
}

std::string daemon_label(const std::filesystem::path& state_dir) {
  return std::string("errand.daemon=") + common::daemon_mark(state_dir);
}

sdk::Result<RunPlan> podman_run_plan(const sdk::LaunchSpec& spec, const RunHost& host) {
  const auto& policy = spec.policy;
  const bool brokered = policy.uses_broker();
  const bool open_egress = policy.network == sdk::NetworkMode::restricted && !brokered;
  if (spec.argv.empty()) return make_error("the launch names no agent command");
  if (brokered && !spec.broker_socket)
    return make_error("the launch uses the broker but names no broker socket");
  if (host.relay_program.empty())
    return make_error("errand-relay, which loads errand's syscall filter, was not found");
  const auto& limits = policy.limits;
  RunPlan plan;
  auto& a = plan.args;
  add(a, {"--log-level=error", kRunVerb, "--rm", "-i", "--log-driver=passthrough", "--pull=never"});
  add(a, {"--name", container_name(spec.session_id), "--label", "errand.session=" + spec.session_id,
          "--label", kSystemLabel, "--label", host.daemon_label});
  // No --init: errand-relay is PID 1 (relay_main.cpp), so no process of podman's stands in the
  // container outside errand's filter where the agent could reach it.
  add(a, {"--userns=keep-id", "--read-only", "--read-only-tmpfs=false"});
  add(a,
      {"--tmpfs", "/tmp:rw,exec,nosuid,nodev,mode=1777,size=" + std::to_string(limits.tmp_bytes)});
  add(a, {"--shm-size", std::to_string(limits.shm_bytes)});
  add(a, {"--cap-drop=all", "--security-opt", "no-new-privileges", "--security-opt",
          "seccomp=" + host.seccomp_profile.string()});
  if (!host.cgroup_parent.empty()) add(a, {"--cgroup-parent", host.cgroup_parent});
  if (host.limits_apply) {
    if (limits.pids > 0) add(a, {"--pids-limit", std::to_string(limits.pids)});
    if (limits.memory_bytes > 0) add(a, {"--memory", std::to_string(limits.memory_bytes)});
    if (limits.cpus > 0) add(a, {"--cpus", std::to_string(limits.cpus)});
  }
  const auto nofile = std::to_string(std::min(kSessionNofile, host.nofile_hard));
  add(a, {"--ulimit", "core=0:0", "--ulimit", "nofile=" + nofile + ":" + nofile});
  if (limits.pids > 0) {
    const auto n = std::to_string(limits.pids);
    add(a, {"--ulimit", "nproc=" + n + ":" + n});
  }
  if (limits.file_max_bytes > 0) {
    const auto n = std::to_string(limits.file_max_bytes);
    add(a, {"--ulimit", "fsize=" + n + ":" + n});
  }
  // Egress open: podman 4.3 has no pasta network, so slirp4netns, whose 10.0.2.2 would
  // otherwise be the host's loopback.
  add(a, {open_egress ? kOpenNetwork : "--network=none"});
  add(a, {"--no-hosts", "--hostname", "errand"});
  add(a, {"-v", spec.project_dir.string() + ":/workspace", "-v",
          spec.state_dir.string() + ":/state", "--workdir", "/workspace"});
  add(a, {"--unsetenv-all"});
  // podman needs HOME, PATH and LANG of its own, so those (never secrets) are written out;
  // every other variable is named only, and its value put in podman's environment.
  for (auto& [name, value] : common::image_session_variables(spec)) {
    if (common::is_floor_variable(name) || name == "XDG_RUNTIME_DIR" || name == "CONTAINERS_CONF") {
      add(a, {"--env", name + "=" + value});
    } else {
      add(a, {"--env", name});
      plan.variables.emplace_back(name, std::move(value));
    }
  }
  if (brokered)
    add(a, {"-v", spec.broker_socket->string() + ":" + broker_relay::kBrokerSocketInside + ":ro"});
  // errand-relay comes first in every session: it loads errand's own filter before the agent.
  add(a, {"-v", host.relay_program.string() + ":" + kRelayInside + ":ro"});
  // errand's own programs for the agent (delegate), read-only; image_session_variables puts
  // the mount point ahead on PATH.
  if (spec.tools_dir)
    add(a, {"-v", spec.tools_dir->string() + ":" + sdk::kToolsMountPoint + ":ro"});
  a.push_back(host.image);
  add(a, {kRelayInside,
          brokered ? broker_relay::kBrokerSocketInside : broker_relay::kNoBrokerArgument});
  a.insert(a.end(), spec.argv.begin(), spec.argv.end());
  return plan;
}

}  // namespace errand::podman
