#pragma once

// The egress broker plugin: one broker per session, opened when its sandbox launches and
// closed first when it stops.

#include <boost/json/object.hpp>
#include <errand/sdk/config_problems.hpp>
#include <errand/sdk/egress_broker.hpp>
#include <errand/sdk/extensions/usage_refresh.hpp>
#include <errand/sdk/host_services.hpp>
#include <memory>

#include "plugins/broker/broker_core.hpp"

namespace errand::broker {

class Broker final : public sdk::EgressBroker, public sdk::UsageRefresh {
 public:
  static constexpr const char* config_schema = R"({
  "broker": {
    "type": "object",
    "properties": {
      "caFile": {
        "type": "string",
        "description": "A PEM file of certificate authorities the broker trusts when it calls a provider's https:// base URL, in place of the system store; for a provider behind a private CA. An absolute path. Left out, the system store is used."
      }
    }
  }
})";
  // The agent's providers, its start model and its delegate settings are the core's keys; the
  // broker swaps keys for those providers and answers the delegate command.
  static constexpr const char* config_reads =
      R"(["agent.providers", "agent.provider", "agent.model", "agent.delegate"])";
  static void validate_config(const boost::json::object& config, sdk::ConfigProblems& problems);

  // Throws when the settings cannot be read; the plugin boundary turns that into a refusal.
  explicit Broker(const sdk::HostServices& services);
  Broker(const sdk::HostServices& services, BrokerOptions options);
  ~Broker() override;

  sdk::Result<void> start(sdk::BrokerEvents& events) noexcept override;
  boost::asio::awaitable<sdk::Result<sdk::BrokerSession>> open(
      sdk::BrokerSessionSpec spec) override;
  boost::asio::awaitable<void> close(std::string session_id) override;
  sdk::Result<sdk::Grant> grant(const std::string& session_id,
                                sdk::GrantRequest request) noexcept override;
  sdk::Result<std::vector<sdk::Grant>> grants(const std::string& session_id) noexcept override;
  void stop() noexcept override;
  // UsageRefresh, for !usage refresh.
  void* extension(std::string_view name) noexcept override;
  boost::asio::awaitable<sdk::Result<sdk::ProviderUsage>> refresh_usage(
      std::string provider, sdk::BrokerSessionSpec egress) override;

  BrokerCore& core() noexcept { return *core_; }

 private:
  std::shared_ptr<BrokerSession> find(const std::string& session_id);

  std::shared_ptr<BrokerCore> core_;
};

}  // namespace errand::broker
