#include "plugins/sandbox-podman/impl/podman_info.hpp"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace errand::podman {

namespace json = boost::json;
using sdk::make_error;

namespace {

const json::value* at_path(const json::value& root, std::initializer_list<std::string_view> keys) {
  const json::value* v = &root;
  for (const auto key : keys) {
    if (!v->is_object()) return nullptr;
    v = v->as_object().if_contains(key);
    if (v == nullptr) return nullptr;
  }
  return v;
}

std::string text_at(const json::value& root, std::initializer_list<std::string_view> keys) {
  const auto* v = at_path(root, keys);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

bool flag_at(const json::value& root, std::initializer_list<std::string_view> keys) {
  const auto* v = at_path(root, keys);
  return v != nullptr && v->is_bool() && v->as_bool();
}

// The sizes of every mapping that does not start at the container's id 0, which is the
// account's own id; what remains came from the subordinate ranges.
std::uint64_t subordinate_ids(const json::value* mappings) {
  std::uint64_t total = 0;
  if (mappings == nullptr || !mappings->is_array()) return 0;
  for (const auto& m : mappings->as_array()) {
    if (!m.is_object()) continue;
    const auto* container = m.as_object().if_contains("container_id");
    const auto* size = m.as_object().if_contains("size");
    if (container == nullptr || size == nullptr || !size->is_number()) continue;
    if (container->is_number() && container->to_number<std::int64_t>() == 0) continue;
    total += size->to_number<std::uint64_t>();
  }
  return total;
}

}  // namespace

bool PodmanInfo::has_controller(std::string_view name) const {
  return std::find(cgroup_controllers.begin(), cgroup_controllers.end(), name) !=
         cgroup_controllers.end();
}

sdk::Result<PodmanInfo> parse_podman_info(std::string_view text) {
  boost::system::error_code ec;
  const auto root = json::parse(text, ec);
  if (ec || !root.is_object())
    return make_error("podman info did not print a JSON object" +
                      (ec ? " (" + ec.message() + ")" : std::string()));
  if (at_path(root, {"host", "security", "rootless"}) == nullptr ||
      text_at(root, {"host", "cgroupVersion"}).empty())
    return make_error(
        "podman info's answer has no host.security.rootless or host.cgroupVersion; this podman "
        "speaks a format errand does not know (4.x is what it reads)");
  PodmanInfo info;
  info.version = text_at(root, {"version", "Version"});
  info.rootless = flag_at(root, {"host", "security", "rootless"});
  info.cgroup_version = text_at(root, {"host", "cgroupVersion"});
  info.cgroup_manager = text_at(root, {"host", "cgroupManager"});
  if (const auto* list = at_path(root, {"host", "cgroupControllers"}); list && list->is_array())
    for (const auto& c : list->as_array())
      if (c.is_string()) info.cgroup_controllers.emplace_back(c.as_string());
  info.runtime_name = text_at(root, {"host", "ociRuntime", "name"});
  info.runtime_path = text_at(root, {"host", "ociRuntime", "path"});
  info.runtime_version = text_at(root, {"host", "ociRuntime", "version"});
  if (const auto end = info.runtime_version.find('\n'); end != std::string::npos)
    info.runtime_version.resize(end);
  info.subordinate_uids = subordinate_ids(at_path(root, {"host", "idMappings", "uidmap"}));
  info.subordinate_gids = subordinate_ids(at_path(root, {"host", "idMappings", "gidmap"}));
  info.graph_driver = text_at(root, {"store", "graphDriverName"});
  info.event_logger = text_at(root, {"host", "eventLogger"});
  info.seccomp_enabled = flag_at(root, {"host", "security", "seccompEnabled"});
  info.seccomp_profile_path = text_at(root, {"host", "security", "seccompProfilePath"});
  return info;
}

}  // namespace errand::podman
