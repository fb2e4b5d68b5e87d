#pragma once

// What a model list says a call costs: a model described as an object in
// agent.providers.<name>.models, or in kage's catalog, may carry "inputCost" and "outputCost",
// US dollars per million tokens (the models.dev convention kage follows).

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/agent/kage_catalog.hpp"

namespace errand::agent {

// A non-negative number at key, else none.
std::optional<double> price_per_million(const boost::json::object& model, std::string_view key);

// The cost of a call to provider's model with these token counts, priced by the configured
// models first and kage's catalog after; none when neither prices both directions.
std::optional<double> priced_call(const boost::json::object& config, const KageCatalog* catalog,
                                  std::string_view provider, std::string_view model,
                                  std::uint64_t input_tokens, std::uint64_t output_tokens);

}  // namespace errand::agent
