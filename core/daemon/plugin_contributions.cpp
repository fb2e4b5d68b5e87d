#include "core/daemon/plugin_contributions.hpp"

#include <boost/json/serialize.hpp>
#include <errand/sdk/config_problems.hpp>
#include <map>
#include <memory>
#include <mutex>

#include "core/config/plugin_view.hpp"
#include "core/plugins/plugin_code.hpp"
#include "core/plugins/plugin_helper.hpp"

namespace errand::daemon {

namespace {

using plugins::PluginRecord;

void collect_problem(void* ctx, const char* path, const char* message) {
  auto* problems = static_cast<sdk::ConfigProblems*>(ctx);
  problems->add(path != nullptr ? path : "", message != nullptr ? message : "");
}

void run_validator(const errand_plugin_entry_v1_t& code, const boost::json::object& view,
                   sdk::ConfigProblems& problems) {
  const std::string text = boost::json::serialize(view);
  code.validate_config(text.c_str(), &collect_problem, &problems);
}

// The configuration checks of the plugins whose code is not mapped in this process, run by the
// registry's helper: once for all of them per configuration checked, since a load calls every
// plugin's check in turn over the same configuration.
class HelperChecks {
 public:
  HelperChecks(std::optional<plugins::PluginHelper> helper, std::vector<PluginRecord> checked)
      : helper_(std::move(helper)), checked_(std::move(checked)) {}

  void report(const PluginRecord& record, const boost::json::object& effective,
              sdk::ConfigProblems& problems) {
    const std::lock_guard lock(mutex_);
    std::string text = boost::json::serialize(effective);
    if (text != checked_text_ || (failure_.empty() && !verdicts_.contains(record.path)))
      run_all(effective);
    checked_text_ = std::move(text);
    const auto found = verdicts_.find(record.path);
    const std::string lead = "the configuration checks of the plugin `" + record.name + "` ";
    if (!failure_.empty() || found == verdicts_.end()) {
      problems.add("", lead + "could not run (" +
                           (failure_.empty() ? "the helper gave no verdict" : failure_) +
                           "), and errand refuses a configuration it could not check");
      return;
    }
    if (!found->second.refusal.empty()) {
      problems.add("", lead + "could not run: " + found->second.refusal);
      return;
    }
    for (const auto& problem : found->second.problems) problems.add(problem.path, problem.message);
  }

 private:
  void run_all(const boost::json::object& effective) {
    verdicts_.clear();
    failure_.clear();
    if (!helper_) {
      failure_ = "its code is not mapped and there is no helper to run it";
      return;
    }
    std::vector<plugins::ConfigCheck> checks;
    for (const auto& record : checked_) {
      if (plugins::mapped_code(record) != nullptr) continue;
      checks.push_back({&record, config::plugin_view(effective, record.config_keys.all())});
    }
    auto verdicts = plugins::check_config_with(*helper_, checks);
    if (!verdicts) {
      failure_ = verdicts.error().message;
      return;
    }
    for (std::size_t i = 0; i < checks.size(); ++i)
      verdicts_.emplace(checks[i].record->path, std::move((*verdicts)[i]));
  }

  const std::optional<plugins::PluginHelper> helper_;
  const std::vector<PluginRecord> checked_;
  std::mutex mutex_;
  std::string checked_text_;
  std::map<std::filesystem::path, plugins::CheckVerdict> verdicts_;
  std::string failure_;
};

}  // namespace

std::vector<config::PluginContribution> contributions_of(const plugins::PluginRegistry& registry) {
  std::vector<PluginRecord> checked;
  for (const auto& record : registry.records())
    if (record.loaded && record.validates_config) checked.push_back(record);
  const auto helper_checks = std::make_shared<HelperChecks>(registry.helper(), checked);

  std::vector<config::PluginContribution> out;
  for (const auto& record : registry.records()) {
    if (!record.loaded) continue;
    config::PluginContribution c;
    c.plugin = record.name;
    c.schema_json = record.config_schema;
    c.reads = record.config_keys.reads;
    // Each closure keeps its own copy of the record, so the contributions may outlive the
    // registry they were made from.
    const auto kept = std::make_shared<const PluginRecord>(record);
    if (record.validates_config) {
      // The validator sees what the plugin will be handed, so a key it checks but did not
      // declare fails its tests rather than passing unchecked.
      c.validate = [kept, helper_checks](const boost::json::object& effective,
                                         sdk::ConfigProblems& problems) {
        if (const auto* code = plugins::mapped_code(*kept))
          run_validator(*code, config::plugin_view(effective, kept->config_keys.all()), problems);
        else
          helper_checks->report(*kept, effective, problems);
      };
    }
    if (record.validates_policy) {
      // Only the chosen backend's policy is checked, and that plugin is about to be created,
      // so its code is mapped here.
      c.validate_policy = [kept](const sdk::SandboxPolicy& policy, sdk::ConfigProblems& problems) {
        const auto code = plugins::plugin_code(*kept);
        if (!code) {
          problems.add("sandbox.backend", "the policy checks of the sandbox backend `" +
                                              kept->name +
                                              "` could not run: " + code.error().message);
          return;
        }
        (*code)->validate_policy(&policy, &collect_problem, &problems);
      };
    }
    if (!c.schema_json.empty() || !c.reads.empty() || c.validate || c.validate_policy)
      out.push_back(std::move(c));
  }
  return out;
}

}  // namespace errand::daemon
