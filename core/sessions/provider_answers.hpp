#pragma once

// What the model providers have told this daemon, kept by the session manager on its strand:
// each provider's newest report of its limits (from sessions' calls, or `!usage refresh`), the
// models `!models refresh` heard, and the host kage's catalog. A new session's provider, the
// `!model` lists and the `!usage` answer are all judged from here.

#include "core/agent/kage_catalog.hpp"
#include "core/sessions/model_catalog.hpp"
#include "core/sessions/queue.hpp"
#include "core/sessions/usage_report.hpp"
#include "core/sessions/usage_windows.hpp"

#include <boost/json/object.hpp>
#include <chrono>
#include <errand/sdk/egress_broker.hpp>
#include <optional>
#include <string_view>

namespace errand::sessions {

struct ProviderAnswers {
  UsageByProvider usage;
  FetchedModelsByProvider fetched_models;
  std::optional<agent::KageCatalog> kage_catalog;  // absent: kage was never asked
  // A refresh under way: a second asks for nothing more and is told so.
  bool refreshing_models = false;
  bool refreshing_usage = false;

  const agent::KageCatalog* catalog() const { return kage_catalog ? &*kage_catalog : nullptr; }
  ModelSources model_sources(const boost::json::object& config) const;
  // Answers finish out of order; an older report never replaces a newer one. `provider` names
  // the report when the report itself names none.
  void keep_usage(const std::string& provider, sdk::ProviderUsage report);
  // Whether the provider's window is spent now, by its last report or by the queue's pause on
  // it (agent.fallback starts new sessions elsewhere while it is).
  std::optional<SpentWindow> spent_now(std::string_view provider, const QueueSnapshot& queue,
                                       std::chrono::system_clock::time_point now) const;
};

}  // namespace errand::sessions
