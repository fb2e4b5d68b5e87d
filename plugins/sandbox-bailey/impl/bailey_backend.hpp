#pragma once

// The bailey sandbox backend: confines each session as a host process with namespaces,
// Landlock, seccomp, rlimits and cgroups, through the errand-bailey launcher that ships beside
// the plugin. There is no unconfined mode.

#include <boost/asio/thread_pool.hpp>
#include <errand/sdk/config_problems.hpp>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "common/cgroups/cgroups.hpp"
#include "common/sandbox_process/active_sessions.hpp"
#include "plugins/sandbox-bailey/common/policy.hpp"
#include "plugins/sandbox-bailey/impl/bailey_process.hpp"

namespace errand::bailey {

inline constexpr const char* kLauncherName = "errand-bailey";

class BaileyBackend final : public sdk::SandboxBackend {
 public:
  // Throws (a refusal the host reports) when the launcher is not installed beside the plugin.
  // Reads no configuration: what a session gets arrives as the SandboxPolicy of each call.
  explicit BaileyBackend(const sdk::HostServices& host);
  ~BaileyBackend() override;

  sdk::EnforcementReport probe(const sdk::SandboxPolicy& policy) noexcept override;
  boost::asio::awaitable<sdk::Result<std::unique_ptr<sdk::SandboxProcess>>> launch(
      sdk::LaunchSpec spec) override;
  sdk::SweepReport sweep_orphans() noexcept override;

  // The grants and environment the core's policy asks for, checked when the configuration is
  // loaded with the same rules launch() applies; problems name the keys they came from.
  static void validate_policy(const sdk::SandboxPolicy& policy, sdk::ConfigProblems& problems);

  // The name of a session's cgroup under each controller.
  std::string cgroup_name(const std::string& session_id) const;
  // Where a session's scratch files (its resolv.conf, the launcher's pid) live while it runs.
  std::filesystem::path run_dir(const std::string& session_id) const;

 private:
  // Also settles spec.argv[0] as the absolute path the launcher will exec.
  sdk::Result<ProcessSetup> prepare(sdk::LaunchSpec& spec);
  // The agents' syscall filter, compiled at the first launch and sealed for every launcher to
  // read (filter_handoff.hpp); a failure is not kept, so the next launch tries again.
  sdk::Result<int> sealed_filter();
  // The resolv.conf of a plan whose resolvers never change (every plan but host), written once
  // per daemon under stateDir/bailey/ and bound read-only into each session of that plan.
  sdk::Result<std::filesystem::path> shared_resolv_conf(NetworkPlan plan);

  boost::asio::any_io_executor executor_;
  std::shared_ptr<spdlog::logger> log_;
  std::filesystem::path state_dir_;
  std::string launcher_;
  std::string cgroup_root_;  // BAILEY_CGROUP_ROOT, read once
  cgroups::Layout cgroups_;
  std::shared_ptr<boost::asio::thread_pool> pool_;  // launches and cleanups
  std::shared_ptr<common::DiskWalker> walker_;      // every disk measurement
  std::mutex resolv_mutex_;
  std::set<NetworkPlan> resolv_written_;
  std::mutex filter_mutex_;
  int filter_fd_ = -1;
  sandbox_process::ActiveSessions<ProcessState> active_;
};

}  // namespace errand::bailey
