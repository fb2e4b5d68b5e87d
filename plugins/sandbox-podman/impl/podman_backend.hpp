#pragma once

// The podman sandbox backend: sessions in rootless podman containers, run as the daemon's own
// account, from an image the operator provides. This build probes the host; launching is not
// built yet, and the probe says so as a gap, so `errand run` refuses rather than run a session
// with less than it reports.

#include <errand/sdk/host_services.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <memory>
#include <string>

#include "plugins/sandbox-podman/impl/podman_command.hpp"

namespace errand::podman {

class PodmanBackend final : public sdk::SandboxBackend {
 public:
  // Throws (a refusal the host reports) when errand's containers.conf cannot be written.
  explicit PodmanBackend(const sdk::HostServices& host);

  sdk::EnforcementReport probe(const sdk::SandboxPolicy& policy) noexcept override;
  boost::asio::awaitable<sdk::Result<std::unique_ptr<sdk::SandboxProcess>>> launch(
      sdk::LaunchSpec spec) override;
  sdk::SweepReport sweep_orphans() noexcept override;

 private:
  std::shared_ptr<spdlog::logger> log_;
  PodmanEnvironment env_;
  std::string image_;  // sandbox.image
};

}  // namespace errand::podman
