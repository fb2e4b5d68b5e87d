#pragma once

// Offered by a host (through BrokerEvents::extension) that counts the calls a session's delegate
// command puts to the delegate model. A broker whose host offers none refuses every delegate
// call, saying so: a call nobody counts could exceed agent.delegate.perTurn unseen.

#include <chrono>
#include <cstdint>
#include <errand/sdk/extension.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace errand::sdk {

// One question a session's delegate command put to the delegate model
// (agent.delegate, docs/models.md), as the broker ended it. Token counts are what the
// provider's answer reported; none when it reported none.
struct DelegateReport {
  enum class Outcome {
    answered,  // the model's answer reached the command whole
    refused,   // the provider refused the call (its status is in detail)
    failed,    // the call broke: unreachable, cut, malformed answer
    deadline,  // agent.delegate.deadlineMs passed before the answer ended
  };
  std::string session_id;
  std::string provider;
  std::string model;
  Outcome outcome = Outcome::answered;
  std::string detail;                // why, for every outcome but answered
  std::uint64_t artefact_bytes = 0;  // what the command sent, kept out of the session's context
  std::uint64_t artefact_chars = 0;  // the same, in UTF-8 characters
  std::uint64_t answer_chars = 0;    // the text that went back to the agent
  std::optional<std::uint64_t> input_tokens;
  std::optional<std::uint64_t> output_tokens;
  std::optional<double> reported_cost;  // when the provider's answer priced the call itself
  std::chrono::milliseconds duration{0};
};

class BOOST_SYMBOL_VISIBLE DelegateCalls {
 public:
  static constexpr std::string_view kExtensionName = "errand.delegate-calls.1";

  // The session's delegate command asks to put one question. Empty when it may; else the
  // sentence the command prints before exiting non-zero (no turn runs, the turn's
  // agent.delegate.perTurn calls are spent). Asked only for a well-formed request, after the
  // broker's own checks, so a refused request is never counted; every call admitted ends in
  // exactly one on_delegate_finished.
  virtual std::string admit_delegate(const std::string& session_id) noexcept = 0;
  virtual void on_delegate_finished(const DelegateReport& report) noexcept = 0;

 protected:
  ~DelegateCalls() = default;
};

}  // namespace errand::sdk
