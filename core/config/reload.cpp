#include "core/config/reload.hpp"

#include <array>
#include <errand/sdk/config_values.hpp>
#include <set>
#include <string>

namespace errand::config {

namespace json = boost::json;

namespace {

constexpr std::string_view restart = "; restart the daemon for it to take effect";

constexpr std::array<std::string_view, 8> routed_provider_keys{
    "baseUrl",      "credential",         "credentialName", "placement",
    "capabilities", "strictCapabilities", "kind",           "broker"};

const json::value* at(const json::object& config, std::string_view dotted) {
  return sdk::find_setting(config, dotted);
}

bool same(const json::value* a, const json::value* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return *a == *b;
}

// Every dotted leaf under `prefix` whose value differs, objects descended into.
void changed_leaves(const json::value* before, const json::value* after, const std::string& path,
                    std::vector<std::string>& changed) {
  if (same(before, after)) return;
  const bool both_objects = before && after && before->is_object() && after->is_object();
  if (!both_objects) {
    changed.push_back(path);
    return;
  }
  std::set<std::string> keys;
  for (const auto& entry : before->as_object()) keys.emplace(entry.key());
  for (const auto& entry : after->as_object()) keys.emplace(entry.key());
  for (const auto& key : keys) {
    changed_leaves(before->as_object().if_contains(key), after->as_object().if_contains(key),
                   path + "." + key, changed);
  }
}

class Comparison {
 public:
  Comparison(const json::object& before, const json::object& after)
      : before_(before), after_(after) {}

  void section(std::string_view dotted, const std::string& why) {
    std::vector<std::string> changed;
    changed_leaves(at(before_, dotted), at(after_, dotted), std::string(dotted), changed);
    for (const auto& path : changed) not_reached(path, why);
  }

  void providers() {
    const auto* before = at(before_, "agent.providers");
    const auto* after = at(after_, "agent.providers");
    std::set<std::string> names;
    for (const auto* side : {before, after}) {
      if (side == nullptr || !side->is_object()) continue;
      for (const auto& entry : side->as_object()) names.emplace(entry.key());
    }
    for (const auto& name : names) {
      const std::string path = "agent.providers." + name;
      const auto* was =
          before && before->is_object() ? before->as_object().if_contains(name) : nullptr;
      const auto* is = after && after->is_object() ? after->as_object().if_contains(name) : nullptr;
      if (was == nullptr || is == nullptr) {
        not_reached(path, std::string("the broker's provider routes were built at startup, so ") +
                              (was == nullptr ? "an added provider is not routed"
                                              : "a removed provider stays routed") +
                              " until a restart");
        continue;
      }
      if (!was->is_object() || !is->is_object()) continue;
      for (const auto key : routed_provider_keys) {
        if (!same(was->as_object().if_contains(key), is->as_object().if_contains(key)))
          not_reached(path + "." + std::string(key),
                      "the broker holds this provider's route as it was at startup");
      }
    }
  }

  std::vector<Problem> result() {
    if (!(before_ == after_))
      problems_.push_back({"",
                           "sessions already running keep the configuration they were "
                           "launched with; what a reload reaches applies to sessions "
                           "started after it"});
    return std::move(problems_);
  }

 private:
  void not_reached(const std::string& path, const std::string& why) {
    problems_.push_back({path, "a change to `" + path + "` is not applied by a reload: " + why +
                                   std::string(restart)});
  }

  const json::object& before_;
  const json::object& after_;
  std::vector<Problem> problems_;
};

}  // namespace

std::vector<Problem> unreachable_by_reload(const json::object& before_effective,
                                           const json::object& after_effective) {
  Comparison comparison(before_effective, after_effective);
  comparison.section("chat",
                     "the chat connection, its token and who may use the bot are fixed when the "
                     "daemon connects");
  comparison.section("sandbox.backend", "the sandbox backend is chosen once, at startup");
  comparison.section("sandbox.egress",
                     "the egress broker is set up at startup with the policy it enforces");
  comparison.section("sandbox.egressPorts",
                     "the egress broker is set up at startup with the ports it opens");
  comparison.providers();
  comparison.section("plugins.path", "plugins are found and loaded once, at startup");
  comparison.section("stateDir",
                     "the daemon's lock and databases are opened in the state directory at "
                     "startup");
  comparison.section("web.host", "the web interface binds its address once, at startup");
  comparison.section("web.port", "the web interface binds its address once, at startup");
  return comparison.result();
}

}  // namespace errand::config
