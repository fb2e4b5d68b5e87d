#include "core/config/cross_checks.hpp"
#include "core/config/string_settings.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <cctype>
#include <errand/sdk/config_values.hpp>
#include <filesystem>

#include "core/agent/agent_kinds.hpp"
#include "core/agent/bundled_agents.hpp"
#include "core/agent/kage_reserved_names.hpp"
#include "core/config/fallback_checks.hpp"
#include "core/config/github_checks.hpp"
#include "core/config/provider_checks.hpp"
#include "core/config/suggest.hpp"
#include "core/web/http/bind_address.hpp"

#include "common/ascii_case.hpp"

namespace errand::config {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

const json::object* object_at(const json::object& config, std::string_view dotted) {
  const auto* found = sdk::find_setting(config, dotted);
  return found != nullptr && found->is_object() ? &found->as_object() : nullptr;
}

// True when `inner` is `outer` or lies beneath it, comparing whole path components.
bool is_within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // the empty component a trailing slash leaves
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

void check_roots_apart(const json::object& config, std::vector<Problem>& problems) {
  const std::string project = string_setting(config, "projectRoot");
  const std::string state = string_setting(config, "stateDir");
  if (!project.starts_with('/') || !state.starts_with('/')) return;
  const fs::path project_dir = fs::path(project).lexically_normal();
  const fs::path state_dir = fs::path(state).lexically_normal();
  const std::string apart =
      " Put them side by side, e.g. /srv/errand/projects and /var/lib/errand.";
  if (is_within(state_dir, project_dir) && is_within(project_dir, state_dir)) {
    problems.push_back({"stateDir", "`stateDir` and `projectRoot` are the same directory (" +
                                        state +
                                        "); the daemon's state must be out of every "
                                        "session's reach." +
                                        apart});
  } else if (is_within(state_dir, project_dir)) {
    problems.push_back({"stateDir", "`stateDir` (" + state + ") is inside `projectRoot` (" +
                                        project +
                                        "), where a session could reach the daemon's state "
                                        "and other sessions' records." +
                                        apart});
  } else if (is_within(project_dir, state_dir)) {
    problems.push_back({"projectRoot", "`projectRoot` (" + project + ") is inside `stateDir` (" +
                                           state +
                                           "); projects and the daemon's state must not share "
                                           "a tree." +
                                           apart});
  }
}

void check_agent_provider(const json::object& config, std::vector<Problem>& problems) {
  const auto* providers = object_at(config, "agent.providers");
  const auto* provider = sdk::find_setting(config, "agent.provider");
  if (providers == nullptr || provider == nullptr || !provider->is_string()) return;
  const std::string name(provider->as_string());
  if (name.empty() || providers->contains(name)) return;
  std::vector<std::string> defined;
  for (const auto& entry : *providers) defined.emplace_back(entry.key());
  std::string message =
      "`agent.provider` names \"" + name + "\", which is not defined under `agent.providers`";
  if (auto near = closest_name(name, defined)) {
    message += "; did you mean \"" + *near + "\"?";
  } else {
    std::string listed;
    for (const auto& one : defined) listed += (listed.empty() ? "" : ", ") + one;
    message += "; define it there, or name one of the providers defined (" + listed + ")";
  }
  problems.push_back({"agent.provider", std::move(message)});
}

// The broker calls the delegate model on agent.provider's route, which exists only for a
// provider the broker holds the key of.
void check_delegate_provider(const json::object& config, std::vector<Problem>& problems) {
  if (sdk::find_setting(config, "agent.delegate") == nullptr) return;
  const std::string provider = string_setting(config, "agent.provider");
  const auto* brokered = sdk::find_setting(config, "agent.providers." + provider + ".broker");
  if (brokered == nullptr || !brokered->is_bool() || brokered->as_bool()) return;
  problems.push_back({"agent.delegate",
                      "`agent.delegate` asks agent.provider's delegate model through the "
                      "broker, but `agent.providers." +
                          provider +
                          ".broker` is false, so the broker holds no key for it; remove "
                          "agent.delegate or let the broker hold the provider's key"});
}

void check_agent_command(const json::object& config, std::vector<Problem>& problems) {
  const auto* agent = object_at(config, "agent");
  if (agent == nullptr || string_setting(config, "agent.kind") != "acp" ||
      agent->contains("command"))
    return;
  problems.push_back({"agent.command",
                      "`agent.command` is required when `agent.kind` is \"acp\": errand knows "
                      "no command line for another agent; give the program and its arguments, "
                      "e.g. [\"my-agent\", \"--acp\"]"});
}

// agent.kind left out is chosen from agent.provider's kind (defaults.hpp); a provider without
// one leaves nothing to choose by. A bundled agent speaks one dialect only.
void check_agent_kind(const json::object& config, std::vector<Problem>& problems) {
  const auto* agent = object_at(config, "agent");
  if (agent == nullptr) return;
  const std::string provider = string_setting(config, "agent.provider");
  const std::string provider_kind = string_setting(config, "agent.providers." + provider + ".kind");
  std::string kinds;
  for (const auto& kind : agent::agent_kinds())
    kinds += (kinds.empty() ? "\"" : ", \"") + kind + "\"";
  // An agent.provider that is not defined is reported on its own, by check_agent_provider.
  const auto* definitions = object_at(config, "agent.providers");
  if (definitions == nullptr || !definitions->contains(provider)) return;
  if (!agent->contains("kind")) {
    problems.push_back(
        {"agent.kind",
         "`agent.kind` is not set, and `agent.providers." + provider +
             ".kind` does not say which API the provider speaks, so errand cannot choose the "
             "agent for it: set that kind (\"anthropic\" or \"openai\"; the bundled agents "
             "are " +
             agent::bundled_agents_named() + "), or set `agent.kind` to one of " + kinds});
    return;
  }
  const auto* bundled = agent::bundled_agent(string_setting(config, "agent.kind"));
  if (bundled == nullptr || provider_kind.empty() || provider_kind == bundled->provider_kind)
    return;
  const std::string other = agent::default_kind_for_provider(provider_kind);
  problems.push_back(
      {"agent.kind", "`agent.kind` is \"" + std::string(bundled->kind) +
                         "\", which speaks only the " + std::string(bundled->provider_kind) +
                         " API, but `agent.provider` \"" + provider + "\" is of kind \"" +
                         provider_kind + "\"" +
                         (other.empty() ? std::string() : "; use \"" + other + "\" for it") +
                         ", or leave `agent.kind` out to get that default"});
}

void check_alias_names(const json::object& config, std::vector<Problem>& problems) {
  const auto* aliases = object_at(config, "agent.aliases");
  if (aliases == nullptr) return;
  for (const auto& entry : *aliases) {
    if (entry.key().find(':') == json::string_view::npos) continue;
    const std::string path = "agent.aliases." + std::string(entry.key());
    problems.push_back({path, "`" + path +
                                  "` cannot be an alias: \":\" in a model name introduces the "
                                  "thinking level; rename the alias without it"});
  }
}

// kage would refuse these names at every launch; refusing them on every load (start and each
// reload) says so before any session is tried.
void check_kage_provider_names(const json::object& config, std::vector<Problem>& problems) {
  const auto* providers = object_at(config, "agent.providers");
  if (providers == nullptr || string_setting(config, "agent.kind") != "kage") return;
  for (const auto& entry : *providers) {
    if (auto named = agent::check_kage_provider_name(entry.key()); !named)
      problems.push_back(
          {"agent.providers." + std::string(entry.key()),
           "`agent.providers." + std::string(entry.key()) + "`: " + named.error().message});
  }
}

// Without a chat service the web interface is the only way in; without either, nothing could
// ever start a session.
void check_something_served(const json::object& config, std::vector<Problem>& problems) {
  if (object_at(config, "chat") != nullptr || object_at(config, "web") != nullptr) return;
  problems.push_back({"chat",
                      "there is neither a `chat` section nor a `web` section, so nothing could "
                      "start a session; add a chat service, or a `web` block such as "
                      "{\"host\": \"127.0.0.1\", \"port\": 8787} to run sessions from the "
                      "web interface"});
}

// The interface has no login, so its address is its access control: one a stranger could reach
// is refused here, at start and on every reload alike.
void check_web_address(const json::object& config, std::vector<Problem>& problems) {
  const auto* web = object_at(config, "web");
  if (web == nullptr) return;
  if (const auto* host = web->if_contains("host"); host != nullptr && host->is_string()) {
    if (auto address = web::bind_address_of(std::string(host->as_string())); !address)
      problems.push_back({"web.host", "`web.host` is refused: " + address.error().message});
  }
  if (const auto* url = web->if_contains("publicUrl"); url != nullptr && url->is_string()) {
    const std::string_view text = url->as_string();
    // A URL that is not http(s) at all is the format check's to refuse.
    const bool http = common::ascii_lower(text.substr(0, 8)).starts_with("https://") ||
                      common::ascii_lower(text.substr(0, 7)) == "http://";
    if (auto reached = web::public_origin_of(text); http && !reached)
      problems.push_back({"web.publicUrl", "`web.publicUrl` " + reached.error().message});
  }
}

}  // namespace

void check_across_keys(const json::object& config, std::vector<Problem>& problems) {
  check_something_served(config, problems);
  check_web_address(config, problems);
  check_roots_apart(config, problems);
  check_agent_provider(config, problems);
  check_agent_kind(config, problems);
  check_agent_command(config, problems);
  check_delegate_provider(config, problems);
  check_provider_definitions(config, problems);
  check_alias_names(config, problems);
  check_kage_provider_names(config, problems);
  check_github_section(config, problems);
  check_fallback(config, problems);
}

}  // namespace errand::config
