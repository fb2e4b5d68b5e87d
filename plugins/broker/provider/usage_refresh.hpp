#pragma once

// Broker::refresh_usage: one small call on a provider's route under no session (a one-token
// question in its dialect), paced and receipted like any other, to read the limits its
// answer's head carries for !usage refresh.

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <errand/sdk/egress_broker.hpp>
#include <memory>
#include <string>

namespace errand::broker {

class BrokerCore;

// How long a probe may take, the wait for the provider's turn included.
inline constexpr std::chrono::seconds kUsageProbeDeadline{30};

// Runs on the broker's strand, whatever executor awaits it.
boost::asio::awaitable<sdk::Result<sdk::ProviderUsage>> refresh_provider_usage(
    std::shared_ptr<BrokerCore> core, std::string provider, sdk::BrokerSessionSpec egress);

}  // namespace errand::broker
