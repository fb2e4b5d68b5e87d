#pragma once

// The incus sandbox backend: each session an unprivileged Incus system container in a project
// the operator restricted, from an image alias or a copy of a golden instance. The probe and the
// sweep ask incusd through an IncusRequester (incus_requester.hpp), blocking, so tests can feed
// them recorded answers; a launch talks to it through its own client on the session's strand.

#include <spdlog/logger.h>
#include <errand/sdk/config_problems.hpp>
#include <errand/sdk/extensions/image_kage_catalog.hpp>
#include <errand/sdk/extensions/kept_sandboxes.hpp>
#include <errand/sdk/extensions/session_notices.hpp>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/disk_budget/disk_walker.hpp"
#include "common/sandbox_process/active_sessions.hpp"
#include "plugins/sandbox-incus/impl/address_picker.hpp"
#include "plugins/sandbox-incus/impl/config_schema.hpp"
#include "plugins/sandbox-incus/impl/incus_requester.hpp"
#include "plugins/sandbox-incus/impl/incus_settings.hpp"
#include "plugins/sandbox-incus/impl/instance_state.hpp"
#include "plugins/sandbox-incus/impl/kept_steps.hpp"
#include "plugins/sandbox-incus/impl/probe_report.hpp"
#include "plugins/sandbox-incus/impl/root_disk_watch.hpp"

namespace errand::incus {

// errand-guest-init, installed beside the plugin.
inline constexpr const char* kGuestInitName = "errand-guest-init";

class IncusBackend final : public sdk::SandboxBackend,
                           public sdk::ImageKageCatalog,
                           public sdk::SessionNotices,
                           public sdk::KeptSandboxes {
 public:
  static constexpr const char* config_schema = kConfigSchema;

  // Throws (a refusal the host reports) when sandbox.incus cannot be read.
  explicit IncusBackend(const sdk::HostServices& host);
  // An empty requester asks incusd through the client, as the one-argument form does.
  IncusBackend(const sdk::HostServices& host, IncusRequester requester);
  ~IncusBackend() override;

  static void validate_config(const boost::json::object& config, sdk::ConfigProblems& problems);
  static void validate_policy(const sdk::SandboxPolicy& policy, sdk::ConfigProblems& problems);

  sdk::EnforcementReport probe(const sdk::SandboxPolicy& policy) noexcept override;
  boost::asio::awaitable<sdk::Result<std::unique_ptr<sdk::SandboxProcess>>> launch(
      sdk::LaunchSpec spec) override;
  sdk::SweepReport sweep_orphans() noexcept override;
  // ImageKageCatalog: the agent runs from the image, whose kage knows its own providers.
  // SessionNotices: a session's root disk that fills up (root_disk_watch.hpp), a thread's kept
  // instance deleted or replaced. KeptSandboxes: threads' instances kept between their sessions
  // (kept_instances.hpp).
  void* extension(std::string_view name) noexcept override;
  std::optional<std::vector<std::string>> image_kage_providers() const override;
  void send_notices_to(Sink sink) noexcept override;
  boost::asio::awaitable<sdk::SweepReport> keep_only(std::vector<std::string> keys) override;

 private:
  // Copies errand-guest-init from beside the plugin to where instances can mount it: the
  // project's disk paths cover the daemon's state directory, not the plugin's.
  void place_guest_init(const sdk::HostServices& host);

  boost::asio::any_io_executor executor_;
  std::shared_ptr<spdlog::logger> log_;
  IncusSettings settings_;
  IncusRequester requester_;
  std::string daemon_mark_;
  std::filesystem::path incus_dir_;   // <state dir>/incus: the copies instances mount
  std::filesystem::path guest_init_;  // the copy instances mount
  std::string guest_init_problem_;    // why there is none, for the probe
  std::shared_ptr<common::DiskWalker> walker_;
  mutable std::mutex mutex_;  // contract_ and launch_host_
  std::optional<common::ImageContract> contract_;
  std::optional<LaunchHost> launch_host_;
  // Shared with the kept instances' housekeeping, which may outlive the backend by a request.
  std::shared_ptr<sandbox_process::ActiveSessions<InstanceState>> active_ =
      std::make_shared<sandbox_process::ActiveSessions<InstanceState>>();
  std::shared_ptr<AddressPicker> address_picker_ = std::make_shared<AddressPicker>();
  std::shared_ptr<NoticeSink> notices_ = std::make_shared<NoticeSink>();
  std::shared_ptr<KeptHousekeeping> kept_;
};

}  // namespace errand::incus
