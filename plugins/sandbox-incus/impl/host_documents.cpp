#include "plugins/sandbox-incus/impl/host_documents.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>

#include "common/account_name.hpp"

namespace errand::incus {

namespace json = boost::json;

namespace {

Answer get(const IncusRequester& request, const std::string& path) {
  return request("GET", path, std::nullopt);
}

bool answered(const Answer& a) {
  return a && a->has_value();
}

// Names Incus puts in a path segment are held to letters, digits, '-', '_' and '.', so no
// segment built here needs escaping; a name outside that is not asked about.
bool plain_name(std::string_view name) {
  if (name.empty()) return false;
  for (const char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return false;
  return true;
}

}  // namespace

std::string text_at(const json::value& doc, std::string_view key) {
  if (!doc.is_object()) return {};
  const auto* v = doc.as_object().if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::optional<std::string> config_value(const json::value& doc, std::string_view key) {
  if (!doc.is_object()) return std::nullopt;
  const auto* config = doc.as_object().if_contains("config");
  if (config == nullptr || !config->is_object()) return std::nullopt;
  const auto* v = config->as_object().if_contains(key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string(v->as_string());
}

std::string root_pool(const json::value& profile) {
  if (!profile.is_object()) return {};
  const auto* devices = profile.as_object().if_contains("devices");
  if (devices == nullptr || !devices->is_object()) return {};
  for (const auto& [name, device] : devices->as_object())
    if (text_at(device, "type") == "disk" && text_at(device, "path") == "/")
      return text_at(device, "pool");
  return {};
}

std::vector<std::string> nic_devices(const json::value& devices) {
  std::vector<std::string> out;
  if (!devices.is_object()) return out;
  for (const auto& [name, device] : devices.as_object())
    if (text_at(device, "type") == "nic") out.emplace_back(name);
  return out;
}

const json::value& member(const json::value& doc, std::string_view key) {
  static const json::value none;
  if (!doc.is_object()) return none;
  const auto* v = doc.as_object().if_contains(key);
  return v != nullptr ? *v : none;
}

bool passes_kvm(const json::value& devices) {
  if (!devices.is_object()) return false;
  for (const auto& [name, device] : devices.as_object())
    if (text_at(device, "type") == "unix-char" &&
        (text_at(device, "path") == "/dev/kvm" || text_at(device, "source") == "/dev/kvm"))
      return true;
  return false;
}

HostDocuments gather_host_documents(const IncusSettings& settings, const IncusRequester& request) {
  HostDocuments d;
  d.socket.path = settings.socket;
  d.socket.error = ::access(settings.socket.c_str(), R_OK | W_OK) == 0 ? 0 : errno;
  d.account = common::this_account_name();
  d.uid = ::getuid();
  d.gid = ::getgid();
  if (d.socket.error != 0) return d;
  d.server = get(request, "/1.0");
  if (!answered(d.server)) return d;
  d.warnings = get(request, kHostWarningsPath);
  d.project = get(request, "/1.0/projects/" + settings.project);
  if (!answered(d.project)) return d;
  d.profile = get(request, "/1.0/profiles/default");
  if (answered(d.profile)) {
    if (const auto pool = root_pool(**d.profile); plain_name(pool))
      d.pool = get(request, "/1.0/storage-pools/" + pool);
    const auto& devices = member(**d.profile, "devices");
    for (const auto& nic : nic_devices(devices)) {
      const auto network = text_at(member(devices, nic), "network");
      // Two nics on one bridge need its description once.
      const bool gathered = std::any_of(d.networks.begin(), d.networks.end(),
                                        [&](const auto& known) { return known.first == network; });
      if (plain_name(network) && !gathered)
        d.networks.emplace_back(network, get(request, "/1.0/networks/" + network));
    }
  }
  d.alias = get(request, "/1.0/images/aliases/" + settings.image);
  if (answered(d.alias))
    if (const auto target = text_at(**d.alias, "target"); plain_name(target))
      d.image = get(request, "/1.0/images/" + target);
  if (settings.golden) d.golden = get(request, "/1.0/instances/" + *settings.golden);
  return d;
}

}  // namespace errand::incus
