#include "plugins/sandbox-bailey/impl/settings.hpp"

#include <errand/sdk/config_values.hpp>
#include <optional>

namespace errand::bailey {

namespace {

using sdk::find_setting;
using sdk::make_error;

constexpr const char* kDefaultImage = "localhost/errand-agent:latest";

sdk::Result<std::uint64_t> size_or(const boost::json::object& c, const char* key,
                                   const char* fallback) {
  const auto* v = find_setting(c, key);
  auto parsed = sdk::parse_size(v != nullptr ? *v : boost::json::value(fallback));
  if (!parsed) return make_error(std::string(key) + ": " + parsed.error().message);
  return *parsed;
}

sdk::Result<std::int64_t> int_or(const boost::json::object& c, const char* key,
                                 std::int64_t fallback) {
  const auto* v = find_setting(c, key);
  if (v == nullptr) return fallback;
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64()) return static_cast<std::int64_t>(v->as_uint64());
  return make_error(std::string(key) + " must be a whole number");
}

sdk::Result<bool> bool_or(const boost::json::object& c, const char* key, bool fallback) {
  const auto* v = find_setting(c, key);
  if (v == nullptr) return fallback;
  if (!v->is_bool()) return make_error(std::string(key) + " must be true or false");
  return v->as_bool();
}

sdk::Result<std::string> string_or(const boost::json::object& c, const char* key,
                                   const char* fallback) {
  const auto* v = find_setting(c, key);
  if (v == nullptr) return std::string(fallback);
  if (!v->is_string()) return make_error(std::string(key) + " must be a string");
  return std::string(v->as_string());
}

sdk::Result<std::vector<std::string>> strings(const boost::json::object& c, const char* key) {
  std::vector<std::string> out;
  const auto* v = find_setting(c, key);
  if (v == nullptr) return out;
  if (!v->is_array()) return make_error(std::string(key) + " must be a list of strings");
  for (const auto& item : v->as_array()) {
    if (!item.is_string()) return make_error(std::string(key) + " must be a list of strings");
    out.emplace_back(item.as_string());
  }
  return out;
}

// Absent is nullopt, so the caller keeps its default.
sdk::Result<std::optional<std::vector<std::uint16_t>>> ports(const boost::json::object& c,
                                                             const char* key) {
  const auto* v = find_setting(c, key);
  if (v == nullptr) return std::optional<std::vector<std::uint16_t>>{};
  if (!v->is_array()) return make_error(std::string(key) + " must be a list of ports");
  std::vector<std::uint16_t> out;
  for (const auto& p : v->as_array()) {
    const auto n = p.is_int64() ? p.as_int64() : p.is_uint64() ? std::int64_t(p.as_uint64()) : 0;
    if (n < 1 || n > 65535) return make_error(std::string(key) + " holds a port outside 1-65535");
    out.push_back(static_cast<std::uint16_t>(n));
  }
  return std::optional{std::move(out)};
}

}  // namespace

sdk::Result<BaileySettings> read_settings(const boost::json::object& c) {
  BaileySettings s;
  auto network = string_or(c, "sandbox.network", "restricted");
  auto egress = string_or(c, "sandbox.egress.mode", "proxy");
  if (!network) return network.error();
  if (!egress) return egress.error();
  if (*network == "none")
    s.network = sdk::NetworkMode::none;
  else if (*network == "open")
    s.network = sdk::NetworkMode::open;
  else if (*network == "restricted")
    s.network = sdk::NetworkMode::restricted;
  else
    return make_error("sandbox.network must be none, restricted or open");
  if (*egress == "open")
    s.egress = sdk::EgressMode::open;
  else if (*egress == "proxy")
    s.egress = sdk::EgressMode::proxy;
  else
    return make_error("sandbox.egress.mode must be proxy or open");

  if (const auto* egress_ports = find_setting(c, "sandbox.egressPorts");
      egress_ports != nullptr && (!egress_ports->is_array() || egress_ports->as_array().empty()))
    return make_error("sandbox.egressPorts must be a non-empty list of ports");
  for (auto [key, slot] : {std::pair{"sandbox.egressPorts", &s.egress_ports},
                           std::pair{"sandbox.listenPorts", &s.listen_ports}}) {
    auto list = ports(c, key);
    if (!list) return list.error();
    if (*list) *slot = std::move(**list);
  }
  auto hide = bool_or(c, "sandbox.hideHostAddress", false);
  auto require = bool_or(c, "sandbox.requireFullEnforcement", true);
  if (!hide) return hide.error();
  if (!require) return require.error();
  s.hide_host_address = *hide;
  s.require_full_enforcement = *require;

  auto memory = size_or(c, "sandbox.memory", "4g");
  auto file_max = size_or(c, "sandbox.fileMax", "1g");
  auto tmp = size_or(c, "sandbox.tmpSize", "512m");
  auto shm = size_or(c, "sandbox.shmSize", "256m");
  auto disk = size_or(c, "sandbox.disk", "5g");
  auto pids = int_or(c, "sandbox.pids", 512);
  auto disk_ms = int_or(c, "sandbox.diskCheckMs", 30000);
  auto inodes = int_or(c, "sandbox.diskInodes", 1000000);
  auto grace = int_or(c, "sandbox.gracePeriodMs", 10000);
  for (const auto* r : {&memory, &file_max, &tmp, &shm, &disk})
    if (!*r) return r->error();
  for (const auto* r : {&pids, &disk_ms, &inodes, &grace})
    if (!*r) return r->error();
  double cpus = 2;
  if (const auto* v = find_setting(c, "sandbox.cpus")) {
    if (!v->is_number()) return make_error("sandbox.cpus must be a number");
    cpus = v->to_number<double>();
  }
  s.limits.memory_bytes = *memory;
  s.limits.file_max_bytes = *file_max;
  s.limits.tmp_bytes = *tmp;
  s.limits.shm_bytes = *shm;
  s.limits.disk_bytes = *disk;
  s.limits.pids = static_cast<std::uint64_t>(std::max<std::int64_t>(0, *pids));
  s.limits.cpus = cpus;
  s.limits.disk_check_max = std::chrono::milliseconds(*disk_ms);
  s.disk_inodes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, *inodes));
  s.limits.grace = std::chrono::milliseconds(*grace);

  for (auto [key, slot] : {std::pair{"sandbox.policyExtra.read", &s.extra_read},
                           std::pair{"sandbox.policyExtra.write", &s.extra_write},
                           std::pair{"sandbox.policyExtra.execute", &s.extra_execute},
                           std::pair{"sandbox.pathExtra", &s.path_extra}}) {
    auto list = strings(c, key);
    if (!list) return list.error();
    *slot = std::move(*list);
  }
  if (const auto* env = find_setting(c, "sandbox.env")) {
    if (!env->is_object()) return make_error("sandbox.env must map names to strings");
    for (const auto& [name, value] : env->as_object()) {
      if (!value.is_string())
        return make_error("sandbox.env." + std::string(name) + " must be a string");
      s.env.emplace_back(std::string(name), std::string(value.as_string()));
    }
  }
  if (const auto* providers = find_setting(c, "agent.providers");
      providers && providers->is_object())
    for (const auto& [name, def] : providers->as_object())
      if (def.is_object())
        if (const auto* cn = def.as_object().if_contains("credentialName"); cn && cn->is_string())
          s.credential_names.emplace_back(cn->as_string());
  auto image = string_or(c, "sandbox.image", kDefaultImage);
  if (!image) return image.error();
  s.image_set = *image != kDefaultImage;
  auto project = string_or(c, "projectRoot", "");
  auto state = string_or(c, "stateDir", "");
  if (!project) return project.error();
  if (!state) return state.error();
  s.project_root = *project;
  s.state_dir = *state;
  return s;
}

}  // namespace errand::bailey
