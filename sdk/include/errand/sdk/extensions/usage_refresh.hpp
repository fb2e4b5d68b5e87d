#pragma once

// Offered by a broker that can ask a model provider for its limits on demand (!usage refresh).

#include <boost/asio/awaitable.hpp>
#include <errand/sdk/egress_broker.hpp>
#include <errand/sdk/extension.hpp>
#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>

namespace errand::sdk {

class BOOST_SYMBOL_VISIBLE UsageRefresh {
 public:
  static constexpr std::string_view kExtensionName = "errand.usage-refresh.1";

  // Asks provider now what its limits are, with one small call on its route (paced and
  // receipted like a session's, under no session). The provider's address is judged by the
  // egress the core decided (a spec without a session: only its ports, allowlist and internal
  // ranges count), as a session's call would be. What the answer's head said is also reported
  // through BrokerEvents::on_provider_usage.
  virtual boost::asio::awaitable<Result<ProviderUsage>> refresh_usage(std::string provider,
                                                                      BrokerSessionSpec egress) = 0;

 protected:
  ~UsageRefresh() = default;
};

}  // namespace errand::sdk
