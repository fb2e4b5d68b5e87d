#include "core/agent/provider_routes.hpp"

#include "core/config/string_settings.hpp"
#include "core/sandbox/sandbox_choice.hpp"

#include <cctype>
#include <errand/sdk/config_values.hpp>
#include <map>

namespace errand::agent {

namespace json = boost::json;

namespace {

// Userinfo may carry only unreserved characters and percent escapes.
std::string percent_encode(std::string_view text) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += hex[byte >> 4];
      out += hex[byte & 0xf];
    }
  }
  return out;
}

}  // namespace

std::string relay_provider_url(std::string_view provider) {
  return "http://" + std::string(relay_host) + ":" + std::to_string(relay_port) + "/provider/" +
         std::string(provider);
}

std::vector<ProviderRoute> provider_routes(const json::object& config,
                                           const sdk::BrokerSession* broker) {
  std::vector<ProviderRoute> routes;
  const auto* providers = sdk::find_setting(config, "agent.providers");
  if (providers == nullptr || !providers->is_object()) return routes;
  const bool proxy = sandbox::egress_mode(config) == sdk::EgressMode::proxy;
  std::map<std::string, const json::object*> sorted;
  for (const auto& entry : providers->as_object())
    if (entry.value().is_object())
      sorted.emplace(std::string(entry.key()), &entry.value().as_object());
  for (const auto& [name, definition] : sorted) {
    ProviderRoute route;
    route.name = name;
    route.kind = config::string_member(*definition, "kind");
    route.credential_name = config::string_member(*definition, "credentialName");
    if (const auto* models = definition->if_contains("models"); models && models->is_array())
      route.models = models->as_array();
    const auto* broker_flag = definition->if_contains("broker");
    const bool wants_broker =
        broker_flag == nullptr || !broker_flag->is_bool() || broker_flag->as_bool();
    route.brokered = proxy && wants_broker;
    if (!route.brokered) {
      route.base_url = config::string_member(*definition, "baseUrl");
      route.credential = config::string_member(*definition, "credential");
    } else if (broker != nullptr) {
      route.base_url = relay_provider_url(name);
      if (const auto found = broker->stand_ins.find(name); found != broker->stand_ins.end()) {
        route.credential = found->second.value;
        if (route.credential_name.empty()) route.credential_name = found->second.credential_name;
      }
    }
    routes.push_back(std::move(route));
  }
  return routes;
}

std::vector<std::pair<std::string, std::string>> proxy_environment(
    std::string_view proxy_credential) {
  const std::string url = "http://errand:" + percent_encode(proxy_credential) + "@" +
                          std::string(relay_host) + ":" + std::to_string(relay_port);
  const std::string bypass = std::string(relay_host) + ",localhost";
  return {{"HTTP_PROXY", url},  {"HTTPS_PROXY", url}, {"http_proxy", url},
          {"https_proxy", url}, {"NO_PROXY", bypass}, {"no_proxy", bypass}};
}

}  // namespace errand::agent
