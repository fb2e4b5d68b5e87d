#include "plugins/sandbox-incus/impl/incus_backend.hpp"

#include <cmath>
#include <stdexcept>

#include "common/daemon_mark.hpp"
#include "plugins/sandbox-incus/impl/host_documents.hpp"
#include "plugins/sandbox-incus/impl/orphan_sweep.hpp"
#include "plugins/sandbox-incus/impl/requester_factory.hpp"

namespace errand::incus {

namespace {

IncusSettings settings_or_throw(const boost::json::object& config) {
  auto settings = read_incus_settings(config);
  if (!settings) throw std::runtime_error("sandbox-incus: " + settings.error().message);
  return *settings;
}

// What this build of the backend cannot give yet, each a gap so the daemon refuses rather than
// run a session with less than the configuration asks.
void report_unbuilt(const sdk::SandboxPolicy& policy, sdk::EnforcementReport& r) {
  r.gaps.push_back({"every incus session",
                    "this build of sandbox-incus probes and sweeps, but cannot start a session "
                    "yet: its launch is not wired to incusd"});
  if (policy.limits.disk_bytes > 0 || policy.limits.disk_inodes > 0)
    r.gaps.push_back({"per-session disk budget",
                      "sandbox-incus does not measure the project and state directories yet"});
  if (policy.limits.file_max_bytes > 0)
    r.gaps.push_back({"the largest file a session may write (sandbox.fileMax)",
                      "errand-guest-init sets no file size limit on the agent yet, and Incus's "
                      "limits.kernel.fsize reaches only the guest's init, not an exec'd process"});
}

}  // namespace

IncusBackend::IncusBackend(const sdk::HostServices& host)
    : settings_(settings_or_throw(host.config)),
      requester_(make_requester(host, settings_)),
      daemon_mark_(common::daemon_mark(host.state_dir)) {}

IncusBackend::IncusBackend(const sdk::HostServices& host, IncusRequester requester)
    : settings_(settings_or_throw(host.config)),
      requester_(std::move(requester)),
      daemon_mark_(common::daemon_mark(host.state_dir)) {}

void IncusBackend::validate_config(const boost::json::object& config,
                                   sdk::ConfigProblems& problems) {
  if (auto settings = read_incus_settings(config); !settings)
    problems.add("sandbox.incus", settings.error().message);
}

void IncusBackend::validate_policy(const sdk::SandboxPolicy& policy,
                                   sdk::ConfigProblems& problems) {
  // limits.cpu.allowance counts whole milliseconds of every 100.
  if (policy.limits.cpus > 0 && std::lround(policy.limits.cpus * 100) < 1)
    problems.add("sandbox.cpus",
                 "incus gives a session at least 1 ms of CPU time in every 100 ms, so sandbox.cpus "
                 "must be 0.01 or more");
  // errand-guest-init mounts each at exactly its size; 0 would be the kernel's own default.
  for (const auto& [bytes, key] : {std::pair{policy.limits.tmp_bytes, "sandbox.tmpSize"},
                                   std::pair{policy.limits.shm_bytes, "sandbox.shmSize"}})
    if (bytes == 0)
      problems.add(key,
                   "incus sessions get a fresh tmpfs of exactly this size, so it must be more "
                   "than 0 bytes");
  // Variables reach the guest as NAME=value entries ended by a NUL, in errand-guest-init's
  // preamble; a value holding one would be cut there.
  for (const auto& [name, value] : policy.env_extra)
    if (value.find('\0') != std::string::npos)
      problems.add("sandbox.env." + name,
                   "holds a NUL byte, which no process environment can carry; remove it");
}

sdk::EnforcementReport IncusBackend::probe(const sdk::SandboxPolicy& policy) noexcept {
  try {
    const auto docs = gather_host_documents(settings_, requester_);
    auto outcome = build_probe_report(docs, settings_, policy);
    report_unbuilt(policy, outcome.report);
    if (outcome.host) outcome.host->daemon_mark = daemon_mark_;
    std::lock_guard lock(mutex_);
    contract_ = std::move(outcome.contract);
    launch_host_ = std::move(outcome.host);
    return std::move(outcome.report);
  } catch (const std::exception& e) {
    sdk::EnforcementReport r;
    r.backend = "incus";
    r.gaps.push_back({"every incus guarantee", std::string("the probe failed: ") + e.what()});
    return r;
  }
}

std::optional<std::vector<std::string>> IncusBackend::image_kage_providers() const {
  std::lock_guard lock(mutex_);
  if (!contract_) return std::nullopt;
  return contract_->providers;
}

boost::asio::awaitable<sdk::Result<std::unique_ptr<sdk::SandboxProcess>>> IncusBackend::launch(
    sdk::LaunchSpec spec) {
  co_return sdk::make_error("sandbox-incus cannot start session " + spec.session_id +
                                " yet: its launch is not wired to incusd",
                            sdk::Error::Kind::unavailable);
}

sdk::SweepReport IncusBackend::sweep_orphans() noexcept {
  try {
    std::set<std::string> live;
    {
      std::lock_guard lock(mutex_);
      live = live_sessions_;
    }
    return incus::sweep_orphans(requester_, daemon_mark_, live);
  } catch (const std::exception& e) {
    sdk::SweepReport report;
    report.complete = false;
    report.details.push_back(std::string("the sweep failed: ") + e.what());
    return report;
  }
}

}  // namespace errand::incus
