#pragma once

// The podman sandbox backend: sessions in rootless podman containers, run as the daemon's own
// account, from an image the operator provides. What the host cannot give (cgroup limits under
// rootless cgroup v1, a missing errand-relay) the probe reports as gaps, so `errand run` refuses
// rather than run a session with less than it reports.

#include <boost/asio/thread_pool.hpp>
#include <errand/sdk/extensions/image_kage_catalog.hpp>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "common/disk_budget/disk_walker.hpp"
#include "common/sandbox_process/active_sessions.hpp"
#include "plugins/sandbox-podman/impl/config_schema.hpp"
#include "plugins/sandbox-podman/impl/podman_command.hpp"
#include "plugins/sandbox-podman/impl/podman_process.hpp"
#include "plugins/sandbox-podman/impl/run_plan.hpp"

namespace errand::podman {

// What launches need from the host, learned from podman info: whether cgroup limits apply, and
// errand's seccomp profile (written to own_dir from podman's default).
sdk::Result<RunHost> learn_run_host(const PodmanEnvironment& env, const std::string& image,
                                    const std::filesystem::path& own_dir,
                                    const std::string& daemon_label);

// The relay podman sessions start first under the broker, installed beside the plugin.
inline constexpr const char* kRelayName = "errand-relay";

class PodmanBackend final : public sdk::SandboxBackend, public sdk::ImageKageCatalog {
 public:
  static constexpr const char* config_schema = kConfigSchema;

  // Throws (a refusal the host reports) when errand's containers.conf cannot be written.
  explicit PodmanBackend(const sdk::HostServices& host);
  ~PodmanBackend() override;

  sdk::EnforcementReport probe(const sdk::SandboxPolicy& policy) noexcept override;
  boost::asio::awaitable<sdk::Result<std::unique_ptr<sdk::SandboxProcess>>> launch(
      sdk::LaunchSpec spec) override;
  sdk::SweepReport sweep_orphans() noexcept override;
  // ImageKageCatalog: the agent runs from the image, whose kage knows its own providers.
  void* extension(std::string_view name) noexcept override;
  // The providers the image's errand.contract label lists, as the last probe read them.
  std::optional<std::vector<std::string>> image_kage_providers() const override;

 private:
  // What launches need from the host, learned by podman info; asked once.
  sdk::Result<RunHost> run_host();

  boost::asio::any_io_executor executor_;
  std::shared_ptr<spdlog::logger> log_;
  std::filesystem::path own_dir_;  // errand's containers.conf and seccomp profile
  std::string daemon_label_;       // errand.daemon=<...> on every container this daemon starts
  PodmanEnvironment env_;
  std::string image_;            // sandbox.image
  std::filesystem::path relay_;  // errand-relay, beside the plugin
  std::shared_ptr<boost::asio::thread_pool> pool_;
  std::shared_ptr<common::DiskWalker> walker_;  // every disk measurement
  std::mutex mutex_;                            // run_host_
  std::optional<RunHost> run_host_;
  sandbox_process::ActiveSessions<ContainerState> active_;
  mutable std::mutex contract_mutex_;
  std::optional<std::vector<std::string>> image_providers_;
};

}  // namespace errand::podman
