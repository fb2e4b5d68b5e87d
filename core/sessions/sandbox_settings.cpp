#include "core/sessions/sandbox_settings.hpp"
#include "core/config/string_settings.hpp"

#include <chrono>
#include <errand/sdk/config_values.hpp>

namespace errand::sessions {

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

sdk::Result<std::int64_t> whole_setting(const json::object& config, std::string_view key,
                                        std::int64_t fallback) {
  const auto* v = sdk::find_setting(config, key);
  if (v == nullptr) return fallback;
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

}  // namespace

sdk::Result<SandboxSettings> sandbox_settings_from_config(const json::object& config) {
  SandboxSettings s;
  struct SizeKey {
    const char* key;
    std::uint64_t* into;
  };
  const SizeKey sizes[] = {{"sandbox.memory", &s.limits.memory_bytes},
                           {"sandbox.fileMax", &s.limits.file_max_bytes},
                           {"sandbox.tmpSize", &s.limits.tmp_bytes},
                           {"sandbox.shmSize", &s.limits.shm_bytes},
                           {"sandbox.disk", &s.limits.disk_bytes}};
  for (const auto& size : sizes) {
    auto value = size_setting(config, size.key);
    if (!value) return value.error();
    *size.into = *value;
  }
  if (const auto* cpus = sdk::find_setting(config, "sandbox.cpus")) {
    json::error_code ec;
    const double value = cpus->to_number<double>(ec);
    if (ec || value < 0) return bad("sandbox.cpus", "must be a number of 0 or more");
    s.limits.cpus = value;
  }
  auto pids = whole_setting(config, "sandbox.pids", 0);
  if (!pids) return pids.error();
  s.limits.pids = static_cast<std::uint64_t>(*pids);
  auto inodes = whole_setting(config, "sandbox.diskInodes", 1000000);
  if (!inodes) return inodes.error();
  s.disk_inodes = static_cast<std::uint64_t>(*inodes);
  auto disk_check = whole_setting(config, "sandbox.diskCheckMs", 30000);
  if (!disk_check) return disk_check.error();
  s.limits.disk_check_max = std::chrono::milliseconds(*disk_check);
  auto grace = whole_setting(config, "sandbox.gracePeriodMs", 10000);
  if (!grace) return grace.error();
  s.limits.grace = std::chrono::milliseconds(*grace);

  const auto network = config::string_setting(config, "sandbox.network", "restricted");
  if (network == "none")
    s.network = sdk::NetworkMode::none;
  else if (network == "open")
    s.network = sdk::NetworkMode::open;
  else if (network == "restricted")
    s.network = sdk::NetworkMode::restricted;
  else
    return bad("sandbox.network", "must be none, restricted or open");
  const auto egress = config::string_setting(config, "sandbox.egress.mode", "proxy");
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
  auto path_extra = paths_setting(config, "sandbox.pathExtra");
  if (!path_extra) return path_extra.error();
  s.path_extra = std::move(*path_extra);
  auto read = paths_setting(config, "sandbox.policyExtra.read");
  if (!read) return read.error();
  s.extra_read = std::move(*read);
  auto write = paths_setting(config, "sandbox.policyExtra.write");
  if (!write) return write.error();
  s.extra_write = std::move(*write);
  auto execute = paths_setting(config, "sandbox.policyExtra.execute");
  if (!execute) return execute.error();
  s.extra_execute = std::move(*execute);
  return s;
}

void apply_sandbox_settings(const SandboxSettings& settings, sdk::LaunchSpec& spec) {
  spec.limits = settings.limits;
  spec.network = settings.network;
  spec.egress = settings.egress;
  spec.egress_ports = settings.egress_ports;
  spec.listen_ports = settings.listen_ports;
  spec.disk_inodes = settings.disk_inodes;
  spec.hide_host_address = settings.hide_host_address;
  spec.env_extra = settings.env_extra;
  spec.path_extra = settings.path_extra;
  spec.extra_read = settings.extra_read;
  spec.extra_write = settings.extra_write;
  spec.extra_execute = settings.extra_execute;
}

}  // namespace errand::sessions
