#include "core/agent/acp_settings.hpp"

#include <errand/sdk/config_values.hpp>

namespace errand::agent {

AcpClientOptions acp_client_options_from(const boost::json::object& config) {
  AcpClientOptions options;
  if (const auto* p = sdk::find_setting(config, "agent.permissions"); p && p->is_string())
    options.permissions = p->as_string() == "ask" ? PermissionPolicy::ask : PermissionPolicy::allow;
  if (const auto* startup = sdk::find_setting(config, "timeouts.startupMs");
      startup && (startup->is_int64() || startup->is_uint64()) &&
      startup->to_number<std::int64_t>() > 0)
    options.setup_timeout = std::chrono::milliseconds(startup->to_number<std::int64_t>());
#ifdef ERRAND_VERSION
  options.client_version = ERRAND_VERSION;
#endif
  return options;
}

}  // namespace errand::agent
