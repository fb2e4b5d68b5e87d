#pragma once

// agent.fallback: where a new session starts when agent.provider's usage window is spent.
// errand knows a provider's usage windows per provider, not per model (the broker pauses a
// provider as a whole on 429, and the limits it reads from the answers are kept per provider),
// so a model of the same provider would be spent whenever the starting one is. Each entry is
// therefore "provider/model" naming another provider defined under agent.providers.

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/problem.hpp"

namespace errand::config {

struct ProviderModel {
  std::string provider;
  std::string model;
  // "provider/model", as agent.fallback and threads.db write it.
  std::string text() const { return provider + "/" + model; }
};

// "backup/fake-model" -> {backup, fake-model}, split at the first '/'; nullopt when either side
// is empty. Whether the provider is defined is the caller's question.
std::optional<ProviderModel> split_provider_model(std::string_view text);

// The entries of agent.fallback in order, as validation left them (every one well formed).
std::vector<ProviderModel> fallback_entries(const boost::json::object& config);

// Refuses, each with why and what to write: an entry without a provider, one on agent.provider
// itself, one naming an undefined provider, and a repeat of an earlier entry's provider.
void check_fallback(const boost::json::object& config, std::vector<Problem>& problems);

}  // namespace errand::config
