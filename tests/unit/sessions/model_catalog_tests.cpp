// The names `!model` accepts, the nearest names offered for one it does not, and the lists
// `!model` answers with in the channel and in a thread.

#include "core/config/suggest.hpp"
#include "core/sessions/model_catalog.hpp"
#include "core/sessions/model_list_text.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using errand::config::closest_names;
using namespace errand::sessions;

namespace {

boost::json::object config_of(std::string_view text) {
  return boost::json::parse(text).as_object();
}

const auto kConfig = config_of(R"({"agent": {
  "provider": "anthropic",
  "model": "fake-model",
  "aliases": {"fast": "fake-small", "deep": "fake-large:high"},
  "providers": {
    "openai": {"models": ["gpt-fake"]},
    "anthropic": {"models": ["fake-model", {"id": "fake-other"}, "fake-model"]},
    "local": {}
  }}})");

errand::agent::KageCatalog catalog() {
  errand::agent::KageCatalog c;
  c.providers.push_back({"anthropic",
                         "Anthropic",
                         {{"fake-large", "large", std::nullopt, std::nullopt, std::nullopt}}});
  c.providers.push_back(
      {"zai", "Z", {{"glm-fake", "glm", std::nullopt, std::nullopt, std::nullopt}}});
  return c;
}

}  // namespace

TEST_CASE("closest names: the same word in another case, then prefixes, then near misses") {
  const std::vector<std::string> names{"fake-model", "fake-other", "fake-small", "gpt-fake",
                                       "sonnet"};
  CHECK(closest_names("fake-othr", names) == std::vector<std::string>{"fake-other"});
  CHECK(closest_names("FAKE-OTHER", names) == std::vector<std::string>{"fake-other"});
  // A prefix comes before a word a few edits away, and at most three are given.
  CHECK(closest_names("fake", names) ==
        std::vector<std::string>{"fake-model", "fake-other", "fake-small"});
  CHECK(closest_names("fake-smal", names, 1) == std::vector<std::string>{"fake-small"});
  CHECK(closest_names("claude-sonnet-4", names) == std::vector<std::string>{"sonnet"});
  CHECK(closest_names("llama", names).empty());
  // Two letters begin or sit inside too many names to point at one.
  CHECK(closest_names("fa", names).empty());
}

TEST_CASE("a provider's names: configured, fetched, kage's catalog and the aliases, each once",
          "[key:agent.providers.<name>.models]"
          "[key:agent.aliases.<name>]") {
  FetchedModelsByProvider fetched{{"anthropic", {{"fake-model-small", "fake-other"}, {}}}};
  const auto kage = catalog();
  const auto models = models_of({kConfig, fetched, &kage}, "anthropic");
  CHECK(models.models ==
        std::vector<std::string>{"fake-model", "fake-other", "fake-model-small", "fake-large"});
  CHECK(models.names() == std::vector<std::string>{"fake-model", "fake-other", "fake-model-small",
                                                   "fake-large", "fast", "deep"});
  CHECK(models.accepts("fast"));
  CHECK_FALSE(models.accepts("Fake-Model"));
  CHECK(models_of({kConfig, fetched, &kage}, "zai").models == std::vector<std::string>{"glm-fake"});
  CHECK_FALSE(models_of({kConfig, fetched, nullptr}, "local").listed());
  // The serving provider first, then the others as the file lists them.
  CHECK(configured_providers(kConfig) == std::vector<std::string>{"anthropic", "openai", "local"});
}

TEST_CASE("!model <name>: a name no list holds is refused with the closest ones",
          "[key:agent.providers.<name>.models]"
          "[key:agent.aliases.<name>]") {
  const FetchedModelsByProvider fetched;
  const auto models = models_of({kConfig, fetched, nullptr}, "anthropic");
  CHECK(unknown_model_refusal(models, "fake-other").empty());
  CHECK(unknown_model_refusal(models, "fast").empty());
  // A thinking level is judged on the name before it.
  CHECK(unknown_model_refusal(models, "fake-other:high").empty());
  CHECK(unknown_model_refusal(models, "fast:low").empty());
  CHECK(unknown_model_refusal(models, "fake-othr") ==
        "`fake-othr` is not a model errand knows for anthropic; did you mean `fake-other`? "
        "`!model` lists them");
  CHECK(unknown_model_refusal(models, "fake-othr:high") ==
        "`fake-othr` is not a model errand knows for anthropic; did you mean `fake-other`? "
        "`!model` lists them");
  CHECK(unknown_model_refusal(models, "fake") ==
        "`fake` is not a model errand knows for anthropic; did you mean `fake-model` or "
        "`fake-other`? `!model` lists them");
  CHECK(unknown_model_refusal(models, "llama") ==
        "`llama` is not a model errand knows for anthropic; `!model` lists them");
  // Another provider's model is not this one's.
  CHECK_FALSE(unknown_model_refusal(models, "gpt-fake").empty());
  // A provider no list names a model for leaves the name to the agent.
  CHECK(unknown_model_refusal(models_of({kConfig, fetched, nullptr}, "local"), "anything").empty());
}

TEST_CASE("!model in the channel lists every provider's models, the starting one marked",
          "[key:agent.providers.<name>.models]") {
  const FetchedModelsByProvider fetched;
  const auto kage = catalog();
  const auto text = describe_models_by_provider({kConfig, fetched, &kage});
  CHECK_THAT(text, StartsWith("sessions start on `fake-model` of provider `anthropic`\n"
                              "provider `anthropic`:\n"
                              "- `fake-model` (sessions start on it)\n"
                              "- `fake-other`\n"
                              "- `fake-large`\n"
                              "provider `openai`:\n"
                              "- `gpt-fake`\n"
                              "provider `local`: no models are listed for it "
                              "(agent.providers.local.models, `!models refresh`)\n"
                              "aliases, for any provider:\n"
                              "- `fast` = `fake-small`\n"
                              "- `deep` = `fake-large:high`\n"));
  CHECK_THAT(text, ContainsSubstring("In a session's thread, `!model` lists"));
}

TEST_CASE("!model in a thread lists its provider's models, the one it runs on marked") {
  const FetchedModelsByProvider fetched;
  const auto kage = catalog();
  const ModelSources sources{kConfig, fetched, &kage};
  CHECK(describe_thread_models(sources, "anthropic", "fake-other", true) ==
        "this session runs on `fake-other` of provider `anthropic`\n"
        "provider `anthropic`:\n"
        "- `fake-model`\n"
        "- `fake-other` (current)\n"
        "- `fake-large`\n"
        "aliases, for any provider:\n"
        "- `fast` = `fake-small`\n"
        "- `deep` = `fake-large:high`\n"
        "`!model <name>` moves this thread to another of them, keeping the conversation.");
  // Through an alias with a level: the alias and the model it stands for are both marked.
  const auto deep = describe_thread_models(sources, "anthropic", "deep", false);
  CHECK_THAT(deep, StartsWith("the next session in this thread starts on `deep`"));
  CHECK_THAT(deep, ContainsSubstring("- `fake-large` (current)"));
  CHECK_THAT(deep, ContainsSubstring("- `deep` = `fake-large:high` (current)"));
  // No model of its own: agent.model.
  CHECK_THAT(describe_thread_models(sources, "anthropic", "", true),
             ContainsSubstring("- `fake-model` (current)"));
  const auto unlisted = describe_thread_models(sources, "local", "", true);
  CHECK_THAT(unlisted, ContainsSubstring("no models are listed for it"));
  CHECK_THAT(unlisted, ContainsSubstring("`!model <name>` asks the agent"));
}
