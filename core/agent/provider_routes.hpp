#pragma once

// How a session's agent reaches each configured provider, and the proxy variables that send
// everything else through the session's broker. Under sandbox.egress.mode "proxy" a brokered
// provider is the relay route with a stand-in key; the real key never enters the sandbox.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <errand/sdk/egress_broker.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace errand::agent {

// Where the broker's relay listens inside every sandbox.
inline constexpr std::string_view relay_host = "127.0.0.1";
inline constexpr int relay_port = 3128;

struct ProviderRoute {
  std::string name;             // the key under agent.providers
  std::string kind;             // "anthropic", "openai", or empty when not configured
  std::string base_url;         // empty: the agent's own default for this provider
  std::string credential_name;  // the variable the agent reads the key from; may be empty
  std::string credential;       // a stand-in when brokered, else the configured key; may be empty
  bool brokered = false;
  boost::json::array models;  // agent.providers.<name>.models as configured
};

// One route per provider under agent.providers, in name order. broker is the session's broker
// session, or null when the session has none (egress "open", or network "none"). A brokered
// provider without a broker session gets neither base URL nor key: it is unreachable, never
// handed the real key.
std::vector<ProviderRoute> provider_routes(const boost::json::object& config,
                                           const sdk::BrokerSession* broker);

// http://127.0.0.1:3128/provider/<name>
std::string relay_provider_url(std::string_view provider);

// HTTP_PROXY, HTTPS_PROXY, http_proxy and https_proxy carrying the session's proxy credential
// as userinfo, and NO_PROXY/no_proxy covering the relay so provider calls reach it directly.
std::vector<std::pair<std::string, std::string>> proxy_environment(
    std::string_view proxy_credential);

}  // namespace errand::agent
