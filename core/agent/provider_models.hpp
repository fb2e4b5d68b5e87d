#pragma once

// Asks a model provider which models it offers (GET .../v1/models), for `!models refresh`. The
// daemon makes this call itself, on the host, with the real key, because it is the operator's
// question and not the agent's: nothing of it reaches a sandbox. HTTPS with the system's
// certificates and the name checked; plain http only to a loopback literal, as the
// configuration allows for a local provider; no redirect is followed.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <errand/sdk/result.hpp>
#include <string>
#include <vector>

namespace errand::agent {

struct ModelsRequest {
  std::string provider;
  std::string base_url;    // agent.providers.<name>.baseUrl
  std::string kind;        // anthropic | openai | empty
  std::string placement;   // bearer | x-api-key | empty (then derived from kind)
  std::string credential;  // the real key
  std::chrono::milliseconds timeout{15000};
  std::string extra_ca_pem;  // tests: a CA trusted besides the system's
};

// The request for every provider in agent.providers that has a baseUrl and a credential.
std::vector<ModelsRequest> models_requests_from_config(const boost::json::object& config);

// The model ids the provider listed, in its order; an Error whose message says what failed
// (the dial, the certificate, the status and the start of its answer).
boost::asio::awaitable<sdk::Result<std::vector<std::string>>> fetch_provider_models(
    boost::asio::any_io_executor executor, ModelsRequest request);

// Exposed for tests: where the list is asked for, given a base URL ("…/v1" or not).
std::string models_target(const std::string& base_path);

}  // namespace errand::agent
