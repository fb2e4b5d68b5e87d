#include "core/sessions/session_launch.hpp"

#include "core/agent/provider_routes.hpp"
#include "core/agent/state_files.hpp"
#include "core/sessions/delegate_tools.hpp"
#include "core/sessions/private_directory.hpp"

namespace errand::sessions {

namespace fs = std::filesystem;

sdk::Result<void> prepare_session_directories(const SessionPlan& plan, const SessionPaths& paths,
                                              const fs::path& state_dir, spdlog::logger& log) {
  std::error_code ec;
  // Projects are the daemon account's alone: what errand makes here (projectRoot, a new
  // project) is 0700 whatever the umask, so no other account on the host reads the code or what
  // the agent wrote. An existing directory keeps its mode; errand setup tightens those.
  const auto root = plan.project_dir.parent_path();
  if (!fs::exists(root, ec) && fs::create_directories(root, ec))
    fs::permissions(root, fs::perms::owner_all, fs::perm_options::replace, ec);
  if (fs::create_directories(plan.project_dir, ec))
    fs::permissions(plan.project_dir, fs::perms::owner_all, fs::perm_options::replace, ec);
  if (ec || !fs::is_directory(plan.project_dir, ec))
    return sdk::make_error(
        "the project directory " + plan.project_dir.string() + " cannot be created" +
        (ec ? ": " + ec.message() : std::string(": something else has that name")));
  // A resumed thread takes its agent's state along: the agent's own history (what session/load
  // reads) lives there.
  if (plan.previous_session_id) {
    const auto previous = SessionPaths::of(state_dir, *plan.previous_session_id);
    if (fs::is_directory(previous.state, ec) && !fs::exists(paths.state, ec)) {
      fs::create_directories(paths.state.parent_path(), ec);
      fs::rename(previous.state, paths.state, ec);
      if (ec)
        log.warn("session {}: the state of session {} could not be carried over: {}",
                 plan.session_id, *plan.previous_session_id, ec.message());
    }
  }
  if (auto made = make_private_directory(paths.state); !made) return made;
  return make_private_directory(paths.record);
}

sdk::Result<SandboxLaunch> sandbox_launch(const LaunchFacts& facts) {
  const auto& plan = facts.plan;
  agent::LaunchInputs inputs;
  inputs.config = plan.config.get();
  inputs.routes = agent::provider_routes(*plan.config, facts.broker);
  inputs.provider = plan.provider;
  inputs.model = facts.model;
  inputs.agent_installed_on_host = facts.services.capabilities.agent_from_host_install;
  inputs.config_file = facts.services.config_file;
  if (facts.house_rules) inputs.house_rules = facts.house_rules->text;
  auto launch = plan.glue->prepare(inputs);
  if (!launch) return launch.error();
  if (auto written = agent::write_launch_files(facts.paths.state, *launch); !written)
    return sdk::make_error("the agent's files could not be written: " + written.error().message);
  SandboxLaunch result;
  result.took_house_rules = launch->took_house_rules;
  auto& spec = result.spec;
  spec.policy = facts.policy;
  spec.session_id = plan.session_id;
  spec.keep_key = plan.thread_id;
  spec.project_dir = plan.project_dir;
  spec.state_dir = facts.paths.state;
  spec.record_dir = facts.paths.record;
  spec.argv = launch->argv;
  spec.env = launch->env;
  spec.env.insert(spec.env.end(), facts.github_env.begin(), facts.github_env.end());
  if (facts.broker) {
    spec.broker_socket = facts.broker->socket_path;
    for (auto& variable : agent::proxy_environment(facts.broker->proxy_credential))
      spec.env.push_back(std::move(variable));
  }
  spec.agent_dirs = launch->agent_dirs;
  if (facts.delegate) {
    if (auto tools = delegate_tools_dir(facts.services.tools_dir); !tools) return tools.error();
    spec.tools_dir = facts.services.tools_dir;
  }
  result.config_options = launch->config_options;
  for (const auto& variable : spec.env) result.environment_names.push_back(variable.first);
  for (const auto& variable : spec.policy.env_extra)
    result.environment_names.push_back(variable.first);
  return result;
}

}  // namespace errand::sessions
