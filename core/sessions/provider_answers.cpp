#include "core/sessions/provider_answers.hpp"

#include <utility>

namespace errand::sessions {

ModelSources ProviderAnswers::model_sources(const boost::json::object& config) const {
  return ModelSources{config, fetched_models, catalog()};
}

void ProviderAnswers::keep_usage(const std::string& provider, sdk::ProviderUsage report) {
  auto& kept = usage[report.provider.empty() ? provider : report.provider];
  if (report.observed_at >= kept.observed_at) kept = std::move(report);
}

std::optional<SpentWindow> ProviderAnswers::spent_now(
    std::string_view provider, const QueueSnapshot& queue,
    std::chrono::system_clock::time_point now) const {
  ProviderState state;
  if (const auto it = usage.find(std::string(provider)); it != usage.end())
    state.usage = &it->second;
  if (const auto it = queue.pause_ends.find(provider); it != queue.pause_ends.end())
    state.paused_until = it->second;
  return spent_window(provider, state, queue.limits.max_queue_wait, now);
}

}  // namespace errand::sessions
