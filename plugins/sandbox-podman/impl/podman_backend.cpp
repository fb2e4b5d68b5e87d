#include "plugins/sandbox-podman/impl/podman_backend.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cctype>
#include <errand/sdk/config_values.hpp>
#include <sstream>
#include <stdexcept>

#include "common/pool_work.hpp"
#include "plugins/sandbox-podman/impl/cgroup_parent.hpp"
#include "plugins/sandbox-podman/impl/containers_conf.hpp"
#include "plugins/sandbox-podman/impl/host_probe.hpp"
#include "plugins/sandbox-podman/impl/image_contract.hpp"
#include "plugins/sandbox-podman/impl/seccomp_profile.hpp"
#include "plugins/sandbox-podman/impl/stop_deadlines.hpp"

namespace errand::podman {

using sdk::make_error;

namespace {

constexpr std::chrono::milliseconds kPodmanTimeout{60000};

// The host hands plugins the effective configuration, where the schema's default
// (config_schema.hpp) is already filled in; a configuration without the key was not built by it.
std::string configured_image(const boost::json::object& config) {
  const auto* image = sdk::find_setting(config, "sandbox.image");
  if (image == nullptr || !image->is_string() || image->as_string().empty())
    throw std::runtime_error(
        "sandbox.image is missing from the configuration the host gave the plugin");
  return std::string(image->as_string());
}

// A session id becomes part of a container name and a label, so it is held to what both take.
bool valid_session_id(const std::string& id) {
  if (id.empty() || id.size() > 128) return false;
  for (const char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return false;
  return std::isalnum(static_cast<unsigned char>(id.front()));
}

}  // namespace

PodmanBackend::PodmanBackend(const sdk::HostServices& host)
    : executor_(host.executor),
      log_(host.log),
      own_dir_(host.state_dir / "podman"),
      daemon_label_(daemon_label(host.state_dir)),
      image_(configured_image(host.config)),
      relay_(host.plugin_path.parent_path() / kRelayName),
      pool_(std::make_shared<boost::asio::thread_pool>(2)),
      walker_(std::make_shared<common::DiskWalker>()) {
  auto conf = write_containers_conf(own_dir_);
  if (!conf) throw std::runtime_error("sandbox-podman: " + conf.error().message);
  env_ = environment_for_this_account(*conf);
}

PodmanBackend::~PodmanBackend() {
  active_.abandon_all();
  pool_->join();
}

sdk::EnforcementReport PodmanBackend::probe(const sdk::SandboxPolicy& policy) noexcept {
  try {
    auto facts = gather_host_facts(env_, image_);
    if (::access(relay_.c_str(), X_OK) != 0)
      facts.relay_problem = relay_.string() +
                            " is missing or not executable; reinstall errand so "
                            "errand-relay sits beside sandbox-podman.so";
    {
      // The agent runs from the image, so kage's providers are the image's, not the host's.
      std::optional<std::vector<std::string>> providers;
      if (facts.image.contract_label)
        if (auto contract = parse_image_contract(*facts.image.contract_label))
          providers = std::move(contract->providers);
      std::lock_guard lock(contract_mutex_);
      image_providers_ = std::move(providers);
    }
    return build_probe_report(facts, policy);
  } catch (const std::exception& e) {
    sdk::EnforcementReport r;
    r.backend = "podman";
    r.gaps.push_back({"every podman guarantee", std::string("the probe failed: ") + e.what()});
    return r;
  }
}

void* PodmanBackend::extension(std::string_view name) noexcept {
  return sdk::offer_extension<sdk::ImageKageCatalog>(this, name);
}

std::optional<std::vector<std::string>> PodmanBackend::image_kage_providers() const {
  std::lock_guard lock(contract_mutex_);
  return image_providers_;
}

sdk::Result<RunHost> learn_run_host(const PodmanEnvironment& env, const std::string& image,
                                    const std::filesystem::path& own_dir,
                                    const std::string& daemon_label) {
  auto out = run_podman(env, {"--log-level=error", "info", "--format", "json"}, kPodmanTimeout);
  if (!out) return out.error();
  if (out->exit_code != 0) return make_error("podman info failed: " + failure_text(*out));
  auto info = parse_podman_info(out->out);
  if (!info) return info.error();
  auto profile = write_seccomp_profile(info->seccomp_profile_path, own_dir);
  if (!profile) return profile.error();
  rlimit nofile{};
  ::getrlimit(RLIMIT_NOFILE, &nofile);
  // Rootless, the limits apply under v2 in a delegated subtree alone (cgroup_parent.hpp), and
  // never under v1.
  std::string parent;
  if (info->rootless && info->cgroup_version == "v2") parent = find_cgroup_parent().path;
  const bool limits_apply = !info->rootless || !parent.empty();
  return RunHost{image,        limits_apply, *profile,         nofile.rlim_max,
                 daemon_label, {},           std::move(parent)};
}

sdk::Result<RunHost> PodmanBackend::run_host() {
  std::lock_guard lock(mutex_);
  if (run_host_) return *run_host_;
  auto host = learn_run_host(env_, image_, own_dir_, daemon_label_);
  if (!host) return host.error();
  host->relay_program = relay_;
  run_host_ = *host;
  return *run_host_;
}

boost::asio::awaitable<sdk::Result<std::unique_ptr<sdk::SandboxProcess>>> PodmanBackend::launch(
    sdk::LaunchSpec spec) {
  if (!valid_session_id(spec.session_id))
    co_return make_error("the session id \"" + spec.session_id +
                         "\" cannot name a container (letters, digits, '-', '_' and '.' only)");
  // The budget is measured on the host, over the directories mounted as /workspace and /state,
  // from a baseline taken before the container exists.
  auto disk = co_await common::session_disk_watch(walker_, spec, log_);
  if (!disk) co_return disk.error();
  auto prepare = [this, spec]() -> sdk::Result<RunningPodman> {
    auto host = run_host();
    if (!host) return host.error();
    auto plan = podman_run_plan(spec, *host);
    if (!plan) return plan.error();
    auto created = run_podman(env_, podman_create_args(*plan), kPodmanTimeout, plan->variables);
    if (!created) return created.error();
    if (created->exit_code != 0)
      return make_error("podman could not create the session's container: " +
                        failure_text(*created));
    auto started = start_podman(env_, podman_start_args(spec.session_id), {});
    if (!started) remove_container(env_, container_name(spec.session_id));
    return started;
  };
  sdk::Result<RunningPodman> running = co_await common::run_on_pool(*pool_, std::move(prepare));
  if (!running) co_return running.error();
  auto state = std::make_shared<ContainerState>(executor_, pool_, log_, env_,
                                                container_name(spec.session_id), *running,
                                                std::move(*disk), spec.policy.limits.grace);
  co_return active_.adopt(spec.session_id, state);
}

sdk::SweepReport PodmanBackend::sweep_orphans() noexcept {
  sdk::SweepReport report;
  try {
    auto listed = run_podman(
        env_,
        {"--log-level=error", "ps", "--all", "--filter", std::string("label=") + kSystemLabel,
         "--filter", "label=" + daemon_label_, "--format", "{{.Names}}"},
        kPodmanTimeout);
    if (!listed || listed->exit_code != 0) {
      report.complete = false;
      report.details.push_back("could not list errand's containers: " +
                               (listed ? failure_text(*listed) : listed.error().message));
      return report;
    }
    std::istringstream names(listed->out);
    for (std::string name; std::getline(names, name);) {
      if (name.empty()) continue;
      bool owned = false;
      active_.for_each_live(
          [&](const std::string&, const ContainerState& state) { owned |= state.name() == name; });
      if (owned) continue;
      auto rm = run_podman(env_, {"--log-level=error", "rm", "--force", "--ignore", name},
                           kRemoveDeadline);
      if (rm && rm->exit_code == 0) {
        ++report.removed;
        report.details.push_back("removed the container " + name + ", which no session owns");
      } else {
        report.complete = false;
        report.details.push_back("could not remove the container " + name + ": " +
                                 (rm ? failure_text(*rm) : rm.error().message));
      }
    }
  } catch (const std::exception& e) {
    report.complete = false;
    report.details.push_back(std::string("the sweep failed: ") + e.what());
  }
  return report;
}

}  // namespace errand::podman
