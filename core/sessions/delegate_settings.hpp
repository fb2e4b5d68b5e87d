#pragma once

// agent.delegate as the core reads it: whether a session gets the delegate command, how many
// calls a turn may make, and what the agent is told about it at the start (docs/models.md).
// The broker reads the model and the deadline itself, since it makes the call.

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace errand::sessions {

struct DelegateSettings {
  std::string model;
  std::uint32_t per_turn = 8;
  std::chrono::milliseconds deadline{60000};
};

// None when the configuration has no agent.delegate.
std::optional<DelegateSettings> delegate_settings(const boost::json::object& config);

// What the agent is told, with the house rules, so it knows the command exists, what it is for
// and how to call it.
std::string delegate_guidance(const DelegateSettings& settings);

}  // namespace errand::sessions
