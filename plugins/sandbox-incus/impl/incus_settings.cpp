#include "plugins/sandbox-incus/impl/incus_settings.hpp"

#include <errand/sdk/config_values.hpp>

namespace errand::incus {

using sdk::make_error;

namespace {

sdk::Result<std::string> required_text(const boost::json::object& config, const char* key) {
  const auto* value = sdk::find_setting(config, key);
  if (value == nullptr || !value->is_string() || value->as_string().empty())
    return make_error(std::string(key) +
                      " is missing from the configuration the host gave the plugin");
  return std::string(value->as_string());
}

}  // namespace

sdk::Result<IncusSettings> read_incus_settings(const boost::json::object& config) {
  IncusSettings s;
  auto project = required_text(config, "sandbox.incus.project");
  if (!project) return project.error();
  s.project = std::move(*project);
  auto image = required_text(config, "sandbox.incus.image");
  if (!image) return image.error();
  s.image = std::move(*image);
  auto socket = required_text(config, "sandbox.incus.socket");
  if (!socket) return socket.error();
  s.socket = std::move(*socket);
  if (const auto* golden = sdk::find_setting(config, "sandbox.incus.golden");
      golden != nullptr && golden->is_string())
    s.golden = std::string(golden->as_string());
  const auto* size = sdk::find_setting(config, "sandbox.incus.rootSize");
  if (size == nullptr)
    return make_error(
        "sandbox.incus.rootSize is missing from the configuration the host gave the "
        "plugin");
  auto bytes = sdk::parse_size(*size);
  if (!bytes) return make_error("sandbox.incus.rootSize: " + bytes.error().message);
  if (*bytes == 0) return make_error("sandbox.incus.rootSize must be more than 0 bytes");
  s.root_size_bytes = *bytes;
  const auto* kept = sdk::find_setting(config, "sandbox.incus.keptTotal");
  if (kept == nullptr)
    return make_error(
        "sandbox.incus.keptTotal is missing from the configuration the host gave the plugin");
  auto kept_bytes = sdk::parse_size(*kept);
  if (!kept_bytes) return make_error("sandbox.incus.keptTotal: " + kept_bytes.error().message);
  s.kept_total_bytes = *kept_bytes;
  const auto* uid = sdk::find_setting(config, "sandbox.incus.guestUid");
  if (uid == nullptr || !uid->is_int64() || uid->as_int64() < 1 || uid->as_int64() > 65535)
    return make_error("sandbox.incus.guestUid must be a uid from 1 to 65535");
  s.guest_uid = static_cast<std::uint32_t>(uid->as_int64());
  return s;
}

}  // namespace errand::incus
