#pragma once

// Where a session runs: a new one on agent.provider, or, when that provider's usage window is
// spent (usage_windows.hpp), on the first agent.fallback entry whose provider is not; a resumed
// one on what its thread recorded. threads.db keeps a fallback start as "provider/model", so a
// resume restores both.

#include "core/sessions/usage_windows.hpp"

#include <boost/json/object.hpp>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace errand::sessions {

struct StartChoice {
  std::string provider;  // the provider the session runs on
  std::string model;     // empty: agent.model
  // The line the thread is told; empty when agent.provider was not spent (or no fallback is
  // configured, which leaves the start as it always was).
  std::string notice;
};

using SpentJudge = std::function<std::optional<SpentWindow>(std::string_view provider)>;

StartChoice choose_start(const boost::json::object& config, const SpentJudge& spent_of);

// What threads.db records for the thread's model: "provider/model" when the session runs on
// another provider than agent.provider, else the model alone.
std::string thread_model(const boost::json::object& config, std::string_view provider,
                         std::string_view model);

// The reverse, for a resume: a recorded "provider/model" whose provider is defined and is not
// agent.provider runs there; anything else is a model of agent.provider.
StartChoice restore_thread_model(const boost::json::object& config, std::string_view recorded);

}  // namespace errand::sessions
