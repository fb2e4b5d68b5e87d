#include "core/agent/agent_kinds.hpp"
#include "core/config/core_schema_sections.hpp"
#include "core/config/schema_builders.hpp"

namespace errand::config::core_sections {

namespace json = boost::json;
using namespace schema_nodes;

namespace {

json::object capability() {
  return section(
      "One call the key may make.",
      {
          {"method", one_of("The HTTP method, upper case, or \"*\" for any.",
                            {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "*"})},
          {"path",
           with(text("The path as the provider's own API writes it, after the provider's base "
                     "URL; \"*\" matches one segment and \"**\" any number of them."),
                "format", "url-path")},
      },
      {"method", "path"});
}

json::object capabilities() {
  json::object every_call = one_of("Every call.", {"*"});
  json::object listed =
      hinted(with(list_of("The calls the key may make.", capability()), "minItems", 1),
             "Leave capabilities out to forward every call (each one logged), "
             "or list the calls the key may make; an empty list is refused.");
  return {{"description",
           "Which calls the key may make: a list of {method, path}, or \"*\" for every call. "
           "Absent: every call is forwarded and logged with the entry that would name it."},
          {"anyOf", json::array{std::move(every_call), std::move(listed)}}};
}

json::object provider() {
  json::object node{
      {"type", "object"},
      {"description",
       "One model provider. Keys errand does not read are the operator's own and ignored, "
       "except near-misses of placement, capabilities and strictCapabilities, which are "
       "refused."},
  };
  json::object properties{
      {"credential",
       secret(text("The provider's key. Under sandbox.egress.mode proxy it stays with the "
                   "broker and a session holds a stand-in. Scrubbed from output only when it "
                   "is 8 bytes or longer."))},
      {"credentialName",
       with(with(text("The environment variable the agent reads the credential from, e.g. "
                      "ANTHROPIC_API_KEY."),
                 "format", "env-name"),
            "x-errand-default-note",
            "with a bundled agent.kind, the variable the bundled agent of this provider's kind "
            "reads: \"ANTHROPIC_API_KEY\" (anthropic), \"OPENAI_API_KEY\" (openai); absent "
            "otherwise")},
      {"baseUrl", with(text("The provider's API base URL."), "format", "uri")},
      {"kind", one_of("The provider's API dialect; decides placement when placement is absent.",
                      {"anthropic", "openai"})},
      {"placement",
       with(one_of("The header the key travels in: \"bearer\" (Authorization: Bearer) or "
                   "\"x-api-key\". The broker takes the stand-in only there and puts the key "
                   "only there.",
                   {"bearer", "x-api-key"}),
            "x-errand-default-note",
            "from kind: anthropic is x-api-key, openai is bearer; with neither, the stand-in "
            "is accepted in either header")},
      {"capabilities", capabilities()},
      {"strictCapabilities",
       defaulted(flag("When true, a call capabilities does not name is refused with 403 "
                      "instead of forwarded and logged. Needs capabilities."),
                 false)},
      {"maxConcurrentRequests",
       defaulted(
           whole_number("How many calls to this provider the broker lets through at once.", 1), 4)},
      {"broker",
       defaulted(flag("Route this provider through each session's broker, so a session never "
                      "holds the real key. false makes it an ordinary host, which "
                      "sandbox.egress.allow must then name."),
                 true)},
      {"models", list_of("The provider's models, as !model lists them: a model id, or an object "
                         "describing one.",
                         {{"type", json::array{"string", "object"}},
                          {"description", "A model id, or an object describing a model."}})},
  };
  node["properties"] = std::move(properties);
  node["required"] = json::array{"credential"};
  node["additionalProperties"] = true;
  return node;
}

// A provider's name becomes part of its route (http://127.0.0.1:3128/provider/<name>).
json::object provider_name() {
  return {{"type", "string"},
          {"pattern", "^[A-Za-z0-9][A-Za-z0-9._-]*$"},
          {"x-errand-hint",
           "A provider's name is part of its route URL (/provider/<name>): use letters, digits, "
           "'.', '_' and '-', starting with a letter or digit."}};
}

// The kinds come from the agent code's one list, so the schema cannot offer a kind the
// daemon has no glue for.
json::object agent_kind() {
  json::array kinds;
  for (const auto& kind : agent::agent_kinds()) kinds.emplace_back(kind);
  json::object node{
      {"type", "string"},
      {"description",
       "Which agent runs: one errand bundles (\"claude-agent-acp\" for Anthropic providers, "
       "\"codex-acp\" for OpenAI ones; `errand setup` installs them), \"kage\", or \"acp\" "
       "for any other agent that speaks the Agent Client Protocol on its stdio."},
      {"enum", std::move(kinds)}};
  return with(std::move(node), "x-errand-default-note",
              "the bundled agent that speaks agent.provider's kind: \"claude-agent-acp\" for "
              "\"anthropic\", \"codex-acp\" for \"openai\"");
}

}  // namespace

json::object agent() {
  return section(
      "The agent that runs in each sandbox and the model providers it uses.",
      {
          {"kind", agent_kind()},
          {"command",
           with(with(list_of("The agent's command line inside the sandbox, program first.",
                             with(text("One argument."), "minLength", 1)),
                     "minItems", 1),
                "x-errand-default-note",
                "the bundled agent's program when agent.kind names one (found in the bundled "
                "installs first); [\"kage\", \"rpc\"] when agent.kind is \"kage\"; required "
                "for \"acp\"")},
          {"baseUrlVariable",
           with(
               with(text("For an acp agent: the environment variable it reads its provider's "
                         "base URL from."),
                    "format", "env-name"),
               "x-errand-default-note",
               "\"ANTHROPIC_BASE_URL\" when agent.kind is \"claude-agent-acp\"; absent otherwise")},
          {"credentialVariable",
           with(text("For an acp agent: the environment variable it reads its provider "
                     "credential from."),
                "format", "env-name")},
          {"permissions",
           defaulted(one_of("What happens when the agent asks to run a tool: \"allow\" grants "
                            "it, \"ask\" puts the question to the thread.",
                            {"allow", "ask"}),
                     "allow")},
          {"provider", hinted(with(text("The provider a session starts on."), "minLength", 1),
                              "Name one of the providers defined under agent.providers.")},
          {"model",
           with(text("The model a session starts on; absent means the provider's default."),
                "minLength", 1)},
          {"rulesPath",
           absolute_path("A file of house rules (UTF-8 text, at most 64 KiB), read again when "
                         "each session starts and handed to the agent: kage gets it as its "
                         "system rules, any other agent as a leading block of the first "
                         "prompt. A file that cannot be read stops the start and refuses a "
                         "reload. Uploads holding its text are refused.")},
          {"aliases",
           defaulted(map_of("Short names for models, usable with !model and in agent.model.",
                            with(text("The model the alias stands for."), "minLength", 1)),
                     json::object{})},
          {"fallback",
           hinted(list_of("Where a new session starts, in order, when agent.provider's usage "
                          "window is spent (its answers said nothing is left until a reset, or "
                          "it paused errand beyond limits.maxQueueWaitMs): each entry is "
                          "\"provider/model\" naming another provider defined under "
                          "agent.providers, since a provider's windows are shared by all its "
                          "models. Absent: a session always starts on agent.provider.",
                          with(text("Another provider and its model, as \"provider/model\"."),
                               "minLength", 3)),
                  "Write each entry as \"<provider>/<model>\", the provider defined under "
                  "agent.providers and not agent.provider itself.")},
          {"delegate",
           section("A cheaper model of the same provider that the agent may ask one question "
                   "about one thing (a file, a log, a diff), with the delegate command errand "
                   "puts on its PATH. Absent means no delegate command at all.",
                   {
                       {"model", with(text("The model delegated questions go to, of "
                                           "agent.provider."),
                                      "minLength", 1)},
                       {"perTurn",
                        defaulted(whole_number("Delegated questions allowed per turn.", 1), 8)},
                       {"deadlineMs",
                        defaulted(whole_number("How long a delegated question may take, in "
                                               "milliseconds.",
                                               1),
                                  60000)},
                   },
                   {"model"})},
          {"providers",
           hinted(with(with(map_of("The model providers sessions may use, by name.", provider()),
                            "minProperties", 1),
                       "propertyNames", provider_name()),
                  "Define at least the provider agent.provider names.")},
      },
      {"provider", "providers"});
}

}  // namespace errand::config::core_sections
