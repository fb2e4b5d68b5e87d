#include "core/agent/model_price.hpp"

#include <errand/sdk/config_values.hpp>
#include <string>

namespace errand::agent {

namespace json = boost::json;

std::optional<double> price_per_million(const json::object& model, std::string_view key) {
  const auto* value = model.if_contains(key);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  const double price = value->to_number<double>();
  if (price < 0) return std::nullopt;
  return price;
}

std::optional<double> priced_call(const json::object& config, const KageCatalog* catalog,
                                  std::string_view provider, std::string_view model,
                                  std::uint64_t input_tokens, std::uint64_t output_tokens) {
  const auto cost = [&](double in, double out) {
    return (static_cast<double>(input_tokens) * in + static_cast<double>(output_tokens) * out) /
           1e6;
  };
  const std::string models_key = "agent.providers." + std::string(provider) + ".models";
  if (const auto* listed = sdk::find_setting(config, models_key); listed && listed->is_array()) {
    for (const auto& entry : listed->as_array()) {
      if (!entry.is_object()) continue;
      const auto& described = entry.as_object();
      const auto* id = described.if_contains("id");
      if (id == nullptr || !id->is_string() || id->as_string() != model) continue;
      const auto in = price_per_million(described, "inputCost");
      const auto out = price_per_million(described, "outputCost");
      if (in && out) return cost(*in, *out);
    }
  }
  if (catalog != nullptr)
    for (const auto& known : catalog->providers)
      if (known.id == provider)
        for (const auto& listed : known.models)
          if (listed.id == model && listed.input_cost && listed.output_cost)
            return cost(*listed.input_cost, *listed.output_cost);
  return std::nullopt;
}

}  // namespace errand::agent
