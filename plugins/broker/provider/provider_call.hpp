#pragma once

// One call on a provider route, as far as it got. The route's checks and the upstream exchange
// both end a call, so both hold this and each ending leaves exactly one receipt.

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <errand/sdk/host_services.hpp>
#include <string>
#include <string_view>

namespace errand::broker {

class BrokerSession;
struct Connection;
struct ProviderSettings;

struct ProviderCall {
  BrokerSession& session;
  const ProviderSettings& provider;
  std::string method;
  std::string rest_path;  // after the route, as sent
  std::string query;
  bool has_query = false;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::uint64_t bytes_up = 0;
  std::uint64_t bytes_down = 0;

  // The path on the provider: its base URL's path, then what followed the route.
  std::string upstream_path() const;
  // The path a receipt keeps: decoded, with the real key and the stand-in scrubbed out.
  std::string receipt_path() const;
  void record(sdk::ProviderReceipt::Outcome outcome, int status,
              std::uint64_t unrecorded = 0) const;
  // How the log names the call.
  std::string what() const;

  // Records the call as ended with status and answers the session with that same status, so
  // the receipt and the answer cannot disagree. Returns whether the connection may carry
  // another request.
  boost::asio::awaitable<bool> refuse(Connection& connection, sdk::ProviderReceipt::Outcome outcome,
                                      unsigned status, std::string_view body,
                                      bool keep_alive) const;
};

}  // namespace errand::broker
