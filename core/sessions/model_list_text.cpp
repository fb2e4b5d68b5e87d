#include "core/sessions/model_list_text.hpp"

#include "core/agent/agent_glue.hpp"
#include "core/config/string_settings.hpp"

#include <fmt/format.h>

namespace errand::sessions {

namespace {

// Which listed names are the model in use: the name as asked (an alias, perhaps with a level),
// and the model it comes to once aliases are resolved and the level is taken off.
struct InUse {
  std::string asked;
  std::string asked_name;  // asked without a ":level" suffix
  std::string resolved;
  bool is(std::string_view name) const {
    return !name.empty() && (name == asked || name == asked_name || name == resolved);
  }
};

InUse in_use(const boost::json::object& config, std::string_view current) {
  InUse use;
  use.asked =
      current.empty() ? config::string_setting(config, "agent.model") : std::string(current);
  use.asked_name = use.asked;
  if (const auto colon = use.asked.rfind(':');
      colon != std::string::npos && colon > 0 && colon + 1 < use.asked.size())
    use.asked_name = use.asked.substr(0, colon);
  use.resolved = agent::choose_model(config, use.asked).model;
  return use;
}

// "`model` of provider `p`", or its default when nothing names one.
std::string model_of(const InUse& use, std::string_view provider) {
  return use.asked.empty() ? fmt::format("the default model of provider `{}`", provider)
                           : fmt::format("`{}` of provider `{}`", use.asked, provider);
}

std::string no_models_line(std::string_view provider) {
  return fmt::format("no models are listed for it (agent.providers.{}.models, `!models refresh`)",
                     provider);
}

// "provider `p`:" and a line per model; mark is said after the one in use, if any.
std::string provider_block(const ProviderModels& models, const InUse* use, std::string_view mark) {
  std::string text = fmt::format("provider `{}`:", models.provider);
  if (!models.listed()) return text + " " + no_models_line(models.provider);
  for (const auto& model : models.models)
    text += fmt::format("\n- `{}`{}", model,
                        use != nullptr && use->is(model) ? fmt::format(" ({})", mark) : "");
  return text;
}

std::string aliases_block(const ProviderModels& models, const InUse& use, std::string_view mark) {
  if (models.aliases.empty()) return {};
  std::string text = "\naliases, for any provider:";
  for (const auto& [alias, target] : models.aliases)
    text += fmt::format("\n- `{}` = `{}`{}", alias, target,
                        use.is(alias) ? fmt::format(" ({})", mark) : "");
  return text;
}

}  // namespace

std::string describe_models_by_provider(const ModelSources& sources) {
  const auto providers = configured_providers(sources.config);
  if (providers.empty())
    return "no provider is configured (agent.provider, agent.providers), so there are no models "
           "to list";
  const auto use = in_use(sources.config, {});
  constexpr std::string_view mark = "sessions start on it";
  std::string text = "sessions start on " + model_of(use, providers.front());
  ProviderModels first;
  for (std::size_t i = 0; i < providers.size(); ++i) {
    auto models = models_of(sources, providers[i]);
    text += "\n" + provider_block(models, i == 0 ? &use : nullptr, mark);
    if (i == 0) first = std::move(models);
  }
  text += aliases_block(first, use, mark);
  text +=
      "\nIn a session's thread, `!model` lists its provider's models and `!model <name>` moves "
      "the session to one of them, keeping the conversation.";
  return text;
}

std::string describe_thread_models(const ModelSources& sources, std::string_view provider,
                                   std::string_view current, bool live) {
  const auto use = in_use(sources.config, current);
  const auto models = models_of(sources, provider);
  constexpr std::string_view mark = "current";
  std::string text =
      (live ? "this session runs on " : "the next session in this thread starts on ") +
      model_of(use, provider);
  text += "\n" + provider_block(models, &use, mark);
  text += aliases_block(models, use, mark);
  text += models.listed()
              ? "\n`!model <name>` moves this thread to another of them, keeping the conversation."
              : "\nso errand cannot check a name: `!model <name>` asks the agent, which takes it "
                "or refuses it.";
  return text;
}

}  // namespace errand::sessions
