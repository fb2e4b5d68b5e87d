#pragma once

// Any other agent that speaks ACP on its stdio (agent.kind "acp"): its command line is
// agent.command, and it learns its provider from two variables the configuration names,
// agent.baseUrlVariable for the endpoint and agent.credentialVariable for the key (when absent,
// the provider's own credentialName carries it).
//
// A bundled agent (bundled_agents.hpp) is this glue too: the configuration's derived defaults
// give it its command and variables, and its program is looked for in the bundled installs
// before the daemon's PATH; where the agent runs from an image, the image's install is run.

#include "core/agent/agent_glue.hpp"
#include "core/agent/bundled_agents.hpp"

namespace errand::agent {

class GenericAcpGlue final : public AgentGlue {
 public:
  // bundled: the bundled agent this glue runs, or null for agent.kind "acp".
  explicit GenericAcpGlue(const BundledAgent* bundled = nullptr) : bundled_(bundled) {}
  std::string_view kind() const noexcept override {
    return bundled_ != nullptr ? bundled_->kind : std::string_view("acp");
  }
  void check(const boost::json::object& config, sdk::ConfigProblems& problems) const override;
  sdk::Result<AgentLaunch> prepare(const LaunchInputs& inputs) const override;

 private:
  const BundledAgent* bundled_;
};

}  // namespace errand::agent
