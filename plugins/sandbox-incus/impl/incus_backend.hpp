#pragma once

// The incus sandbox backend: each session an unprivileged Incus system container in a project
// the operator restricted, from an image alias or a copy of a golden instance. It talks to
// incusd only through an IncusRequester (incus_requester.hpp); probe and sweep are wired, and
// launch is not yet: the probe says so as a gap, so `errand run` refuses rather than start
// sessions that cannot run.

#include <errand/sdk/config_problems.hpp>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "plugins/sandbox-incus/impl/config_schema.hpp"
#include "plugins/sandbox-incus/impl/incus_requester.hpp"
#include "plugins/sandbox-incus/impl/incus_settings.hpp"
#include "plugins/sandbox-incus/impl/probe_report.hpp"

namespace errand::incus {

class IncusBackend final : public sdk::SandboxBackend {
 public:
  static constexpr const char* config_schema = kConfigSchema;

  // Throws (a refusal the host reports) when sandbox.incus cannot be read.
  explicit IncusBackend(const sdk::HostServices& host);
  IncusBackend(const sdk::HostServices& host, IncusRequester requester);

  static void validate_config(const boost::json::object& config, sdk::ConfigProblems& problems);
  static void validate_policy(const sdk::SandboxPolicy& policy, sdk::ConfigProblems& problems);

  sdk::EnforcementReport probe(const sdk::SandboxPolicy& policy) noexcept override;
  boost::asio::awaitable<sdk::Result<std::unique_ptr<sdk::SandboxProcess>>> launch(
      sdk::LaunchSpec spec) override;
  sdk::SweepReport sweep_orphans() noexcept override;
  std::optional<std::vector<std::string>> image_kage_providers() const override;

 private:
  IncusSettings settings_;
  IncusRequester requester_;
  std::string daemon_mark_;
  mutable std::mutex mutex_;
  std::optional<common::ImageContract> contract_;
  std::optional<LaunchHost> launch_host_;
  std::set<std::string> live_sessions_;
};

}  // namespace errand::incus
