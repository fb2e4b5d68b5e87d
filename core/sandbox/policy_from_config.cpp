#include "core/sandbox/policy_from_config.hpp"

#include "common/human_size.hpp"
#include "core/config/host_share.hpp"
#include "core/config/string_settings.hpp"
#include "core/sandbox/internal_ranges.hpp"
#include "core/sandbox/sandbox_section.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <errand/sdk/config_values.hpp>
#include <optional>

namespace errand::sandbox {

namespace json = boost::json;

namespace {

sdk::Error bad(std::string_view key, std::string_view why) {
  return sdk::make_error(std::string(key) + ": " + std::string(why), sdk::Error::Kind::refused);
}

sdk::Result<std::uint64_t> size_setting(const json::object& config, std::string_view key) {
  const auto* v = sdk::find_setting(config, key);
  if (v == nullptr) return std::uint64_t{0};
  auto parsed = sdk::parse_size(*v);
  if (!parsed) return bad(key, parsed.error().message);
  return *parsed;
}

sdk::Result<std::int64_t> whole_setting(const json::object& config, std::string_view key) {
  const auto* v = sdk::find_setting(config, key);
  if (v == nullptr) return std::int64_t{0};
  json::error_code ec;
  const auto n = v->to_number<std::int64_t>(ec);
  if (ec || n < 0) return bad(key, "must be a whole number of 0 or more");
  return n;
}

sdk::Result<std::vector<std::filesystem::path>> paths_setting(const json::object& config,
                                                              std::string_view key) {
  std::vector<std::filesystem::path> paths;
  const auto* v = sdk::find_setting(config, key);
  if (v == nullptr) return paths;
  if (!v->is_array()) return bad(key, "must be a list of absolute paths");
  for (const auto& item : v->as_array()) {
    if (!item.is_string() || item.as_string().empty() || item.as_string()[0] != '/')
      return bad(key, "must be a list of absolute paths");
    paths.emplace_back(std::string(item.as_string()));
  }
  return paths;
}

sdk::Result<std::vector<std::string>> strings_setting(const json::object& config,
                                                      std::string_view key) {
  std::vector<std::string> strings;
  const auto* v = sdk::find_setting(config, key);
  if (v == nullptr) return strings;
  if (!v->is_array()) return bad(key, "must be a list of strings");
  for (const auto& item : v->as_array()) {
    if (!item.is_string()) return bad(key, "holds something that is not a string");
    strings.emplace_back(item.as_string());
  }
  return strings;
}

sdk::Result<std::vector<std::uint16_t>> ports_setting(const json::value& v, std::string_view key) {
  if (!v.is_array()) return bad(key, "must be a list of ports");
  std::vector<std::uint16_t> ports;
  for (const auto& port : v.as_array()) {
    json::error_code ec;
    const auto n = port.to_number<std::int64_t>(ec);
    if (ec || n < 1 || n > 65535)
      return bad(key, "holds something that is not a port from 1 to 65535");
    ports.push_back(static_cast<std::uint16_t>(n));
  }
  return ports;
}

std::vector<std::string> provider_credential_names(const json::object& config) {
  std::vector<std::string> names;
  const auto* providers = sdk::find_setting(config, "agent.providers");
  if (providers == nullptr || !providers->is_object()) return names;
  for (const auto& [name, definition] : providers->as_object()) {
    if (!definition.is_object()) continue;
    auto credential_name = config::string_member(definition.as_object(), "credentialName");
    if (!credential_name.empty()) names.push_back(std::move(credential_name));
  }
  return names;
}

// The host's capacity, or why it cannot be had, for a key written as a share of it.
sdk::Result<HostCapacity> capacity_for(const sdk::Result<HostCapacity>& host,
                                       std::string_view key) {
  if (!host) return bad(key, "is a share of the host, and " + host.error().message);
  return *host;
}

// A share of the value's own key, resolved against the host: nullopt when the value is not
// written as a share.
sdk::Result<std::optional<double>> share_setting(const json::value* v, std::string_view key) {
  if (v == nullptr || !v->is_string() || !config::looks_like_share(v->as_string()))
    return std::optional<double>{};
  auto share = config::parse_host_share(v->as_string());
  if (!share)
    return sdk::make_error(std::string(key) + " " + share.error().message,
                           sdk::Error::Kind::refused);
  return std::optional<double>{*share};
}

// sandbox.memory: a size, or a share of the host's memory rounded down to whole MiB (what a
// cgroup or Incus is handed reads the same everywhere).
sdk::Result<std::uint64_t> memory_setting(const json::object& config,
                                          const sdk::Result<HostCapacity>& host) {
  constexpr const char* key = "sandbox.memory";
  auto share = share_setting(sdk::find_setting(config, key), key);
  if (!share) return share.error();
  if (!*share) return size_setting(config, key);
  auto capacity = capacity_for(host, key);
  if (!capacity) return capacity.error();
  constexpr std::uint64_t mib = 1 << 20;
  const auto bytes =
      static_cast<std::uint64_t>(static_cast<double>(capacity->memory_bytes) * **share) / mib * mib;
  if (bytes == 0) return bad(key, "is a share of the host's memory that comes to less than 1 MiB");
  return bytes;
}

// sandbox.cpus: a number, or a share of the CPUs the daemon may use, to a hundredth of a CPU.
sdk::Result<double> cpus_setting(const json::object& config,
                                 const sdk::Result<HostCapacity>& host) {
  constexpr const char* key = "sandbox.cpus";
  const auto* v = sdk::find_setting(config, key);
  if (v == nullptr) return 0.0;
  auto share = share_setting(v, key);
  if (!share) return share.error();
  if (*share) {
    auto capacity = capacity_for(host, key);
    if (!capacity) return capacity.error();
    // The small nudge keeps 0.29 × 100 (28.999…) from rounding down a whole hundredth.
    const double cpus = std::floor(capacity->cpus * **share * 100 + 1e-9) / 100;
    if (cpus <= 0) return bad(key, "is a share of the host's CPUs that comes to less than 0.01");
    return cpus;
  }
  json::error_code ec;
  const double value = v->to_number<double>(ec);
  if (ec || value < 0)
    return bad(key, "must be a number of 0 or more, or a share of the host such as \"80%\"");
  return value;
}

}  // namespace

sdk::Result<sdk::SandboxPolicy> policy_from_config(const json::object& effective) {
  return policy_from_config(effective, this_host_capacity());
}

sdk::Result<sdk::SandboxPolicy> policy_from_config(const json::object& effective,
                                                   const sdk::Result<HostCapacity>& host) {
  const auto config = sandbox_with_defaults(effective);
  sdk::SandboxPolicy s;
  auto memory = memory_setting(config, host);
  if (!memory) return memory.error();
  s.limits.memory_bytes = *memory;
  auto cpus = cpus_setting(config, host);
  if (!cpus) return cpus.error();
  s.limits.cpus = *cpus;
  struct SizeKey {
    const char* key;
    std::uint64_t* into;
  };
  const SizeKey sizes[] = {{"sandbox.fileMax", &s.limits.file_max_bytes},
                           {"sandbox.tmpSize", &s.limits.tmp_bytes},
                           {"sandbox.shmSize", &s.limits.shm_bytes},
                           {"sandbox.disk", &s.limits.disk_bytes}};
  for (const auto& size : sizes) {
    auto value = size_setting(config, size.key);
    if (!value) return value.error();
    *size.into = *value;
  }
  auto pids = whole_setting(config, "sandbox.pids");
  if (!pids) return pids.error();
  s.limits.pids = static_cast<std::uint64_t>(*pids);
  auto inodes = whole_setting(config, "sandbox.diskInodes");
  if (!inodes) return inodes.error();
  s.limits.disk_inodes = static_cast<std::uint64_t>(*inodes);
  auto disk_check = whole_setting(config, "sandbox.diskCheckMs");
  if (!disk_check) return disk_check.error();
  s.limits.disk_check_max = std::chrono::milliseconds(*disk_check);
  auto grace = whole_setting(config, "sandbox.gracePeriodMs");
  if (!grace) return grace.error();
  s.limits.grace = std::chrono::milliseconds(*grace);

  const auto network = config::string_setting(config, "sandbox.network");
  if (network == "none")
    s.network = sdk::NetworkMode::none;
  else if (network == "open")
    s.network = sdk::NetworkMode::open;
  else if (network == "restricted")
    s.network = sdk::NetworkMode::restricted;
  else
    return bad("sandbox.network", "must be none, restricted or open");
  const auto egress = config::string_setting(config, "sandbox.egress.mode");
  if (egress == "open")
    s.egress = sdk::EgressMode::open;
  else if (egress == "proxy")
    s.egress = sdk::EgressMode::proxy;
  else
    return bad("sandbox.egress.mode", "must be proxy or open");

  if (const auto* ports = sdk::find_setting(config, "sandbox.egressPorts")) {
    if (!ports->is_array() || ports->as_array().empty())
      return bad("sandbox.egressPorts", "must be a non-empty list of ports");
    auto read = ports_setting(*ports, "sandbox.egressPorts");
    if (!read) return read.error();
    s.egress_ports = std::move(*read);
  }
  if (const auto* ports = sdk::find_setting(config, "sandbox.listenPorts")) {
    auto read = ports_setting(*ports, "sandbox.listenPorts");
    if (!read) return read.error();
    s.listen_ports = std::move(*read);
  }
  auto allow = strings_setting(config, "sandbox.egress.allow");
  if (!allow) return allow.error();
  s.egress_allow = std::move(*allow);
  auto internal = allow_internal_setting(config);
  if (!internal) return internal.error();
  s.allow_internal = std::move(*internal);
  if (const auto* hide = sdk::find_setting(config, "sandbox.hideHostAddress");
      hide != nullptr && hide->is_bool())
    s.hide_host_address = hide->as_bool();

  if (const auto* env = sdk::find_setting(config, "sandbox.env")) {
    if (!env->is_object()) return bad("sandbox.env", "must map variable names to strings");
    for (const auto& [name, value] : env->as_object()) {
      if (!value.is_string()) return bad("sandbox.env", "must map variable names to strings");
      s.env_extra.emplace_back(std::string(name), std::string(value.as_string()));
    }
  }
  for (auto [key, into] : {std::pair{"sandbox.pathExtra", &s.path_extra},
                           std::pair{"sandbox.policyExtra.read", &s.extra_read},
                           std::pair{"sandbox.policyExtra.write", &s.extra_write},
                           std::pair{"sandbox.policyExtra.execute", &s.extra_execute}}) {
    auto paths = paths_setting(config, key);
    if (!paths) return paths.error();
    *into = std::move(*paths);
  }
  s.reserved_env_names = provider_credential_names(effective);
  s.project_root = config::string_setting(effective, "projectRoot");
  s.state_dir = config::string_setting(effective, "stateDir");
  return s;
}

void note_host_shares(const json::object& effective, const sdk::SandboxPolicy& policy,
                      const sdk::Result<HostCapacity>& host, sdk::EnforcementReport& report) {
  if (!host) return;
  const auto config = sandbox_with_defaults(effective);
  const auto share_text = [&](const char* key) -> std::string {
    const auto* v = sdk::find_setting(config, key);
    return v != nullptr && v->is_string() && config::looks_like_share(v->as_string())
               ? std::string(v->as_string())
               : std::string();
  };
  if (const auto share = share_text("sandbox.memory"); !share.empty())
    report.notes.push_back(
        fmt::format("sandbox.memory {} is {} per session: that share of this host's {:.1f} GiB "
                    "(MemTotal)",
                    share, common::config_size(policy.limits.memory_bytes),
                    static_cast<double>(host->memory_bytes) / (1ull << 30)));
  if (const auto share = share_text("sandbox.cpus"); !share.empty())
    report.notes.push_back(fmt::format(
        "sandbox.cpus {} is {:g} CPUs per session: that share of the {} CPU{} errand may run on",
        share, policy.limits.cpus, host->cpus, host->cpus == 1 ? "" : "s"));
}

void note_host_shares(const json::object& effective, const sdk::SandboxPolicy& policy,
                      sdk::EnforcementReport& report) {
  note_host_shares(effective, policy, this_host_capacity(), report);
}

void note_inert_requests(const sdk::SandboxPolicy& policy, sdk::EnforcementReport& report) {
  if (policy.hide_host_address && !report.capabilities.hides_host_address)
    report.notes.push_back("sandbox.hideHostAddress does nothing under " + report.backend +
                           ", which cannot hide the host's addresses from a session");
}

}  // namespace errand::sandbox
