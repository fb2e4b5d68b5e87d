#pragma once

// The model names `!model` accepts for each provider, gathered in one place from everything
// errand knows: the models written under agent.providers.<name>.models, the names of
// agent.aliases, what `!models refresh` found, and the host kage's catalog. A name in none of
// them is refused with the nearest ones, before the agent is asked. A provider none of them
// names any model for is left to the agent: errand has nothing to judge the name against, and
// refusing every name would leave `!model` unusable with an agent whose models only it knows.

#include "core/agent/kage_catalog.hpp"

#include <boost/json/object.hpp>
#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace errand::sessions {

// What one `!models refresh` heard from a provider.
struct FetchedModels {
  std::vector<std::string> ids;
  std::chrono::system_clock::time_point at;
};
using FetchedModelsByProvider = std::map<std::string, FetchedModels>;

// Where the names come from; every reference outlives the sources.
struct ModelSources {
  const boost::json::object& config;
  const FetchedModelsByProvider& fetched;
  const agent::KageCatalog* catalog = nullptr;  // null: kage was never asked
};

struct ProviderModels {
  std::string provider;
  // Configured, then fetched, then the catalog's; each name once, in that order.
  std::vector<std::string> models;
  // agent.aliases: each alias and what it stands for. Aliases belong to no provider, so every
  // provider accepts them.
  std::vector<std::pair<std::string, std::string>> aliases;

  // Whether any list names a model of this provider; aliases alone do not.
  bool listed() const noexcept { return !models.empty(); }
  // The models, then the alias names.
  std::vector<std::string> names() const;
  // Exactly one of names(), case and all.
  bool accepts(std::string_view name) const;
};

ProviderModels models_of(const ModelSources& sources, std::string_view provider);

// agent.provider first, then every other provider under agent.providers, in the file's order.
std::vector<std::string> configured_providers(const boost::json::object& config);

// Empty when `!model requested` may go to the agent: a name the provider's lists hold, whole or
// before a ":level" suffix (a thinking level, agent::choose_model), or any name when the
// provider lists none. Otherwise the refusal, naming the closest names errand knows.
std::string unknown_model_refusal(const ProviderModels& models, std::string_view requested);

}  // namespace errand::sessions
