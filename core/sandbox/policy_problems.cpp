#include "core/sandbox/policy_problems.hpp"

#include <errand/sdk/config_values.hpp>
#include <exception>
#include <string>

#include "core/config/provider_checks.hpp"
#include "core/sandbox/policy_from_config.hpp"
#include "core/sandbox/sandbox_choice.hpp"

namespace errand::sandbox {

namespace json = boost::json;

namespace {

// Every refusal of the builder starts with the key it is about ("sandbox.memory: ...",
// "sandbox.egress.allowInternal is a boolean ..."), so the problem is filed under that key.
std::string key_named_by(const std::string& message) {
  return message.substr(0, message.find_first_of(": "));
}

void check_env_names(const json::object& config, std::vector<config::Problem>& problems) {
  const auto* env = sdk::find_setting(config, "sandbox.env");
  if (env == nullptr || !env->is_object()) return;
  const auto carriers = config::credential_carriers(config);
  for (const auto& entry : env->as_object()) {
    const std::string name(entry.key());
    const std::string path = "sandbox.env." + name;
    if (name == "PATH") {
      problems.push_back({path, "`" + path +
                                    "` is refused: a session's PATH is set by the sandbox "
                                    "policy; add directories with `sandbox.pathExtra` "
                                    "instead"});
    } else if (name == "HOME") {
      problems.push_back({path, "`" + path +
                                    "` is refused: a session's HOME is placed by the sandbox "
                                    "(/state/home); remove it"});
    } else if (const auto carrier = carriers.find(name); carrier != carriers.end()) {
      problems.push_back({path, "`" + path + "` is refused: it is the variable that carries " +
                                    carrier->second +
                                    ", and nothing here may decide what the agent "
                                    "authenticates as; remove it"});
    }
  }
}

}  // namespace

void check_sandbox_policy(const json::object& config, bool well_typed,
                          const std::vector<config::PluginContribution>& contributions,
                          std::vector<config::Problem>& problems) {
  check_env_names(config, problems);
  if (!well_typed) return;
  auto policy = policy_from_config(config);
  if (!policy) {
    problems.push_back({key_named_by(policy.error().message), policy.error().message});
    return;
  }
  // The delegate call is made by the broker, with the key the sandbox never holds.
  if (sdk::find_setting(config, "agent.delegate") != nullptr && !policy->uses_broker())
    problems.push_back({"agent.delegate",
                        "`agent.delegate` needs the egress broker, which makes each delegate "
                        "call with the provider's key, but sessions under this sandbox policy "
                        "have none (sandbox.egress.mode is \"open\", or sandbox.network is not "
                        "restricted); remove agent.delegate or send sessions through the broker"});
  const std::string chosen = "sandbox-" + sandbox_choice(config).backend;
  for (const auto& contribution : contributions) {
    if (contribution.plugin != chosen || !contribution.validate_policy) continue;
    sdk::ConfigProblems found;
    try {
      contribution.validate_policy(*policy, found);
    } catch (const std::exception& e) {
      problems.push_back({"", "the plugin `" + contribution.plugin +
                                  "` failed while checking the sandbox policy (" + e.what() +
                                  "); fix or remove the plugin"});
      continue;
    }
    for (const auto& problem : found.all()) problems.push_back({problem.path, problem.message});
  }
}

}  // namespace errand::sandbox
