#pragma once

// The host side of a session's start, before its sandbox runs: the project, state and record
// directories, and what the backend is asked to launch (the agent glue's command and files, the
// broker's proxy, the GitHub identity's variables, the delegate command's programs).

#include "core/agent/agent_glue.hpp"
#include "core/sessions/house_rules.hpp"
#include "core/sessions/session_paths.hpp"
#include "core/sessions/session_services.hpp"

#include <spdlog/logger.h>
#include <errand/sdk/egress_broker.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <string>
#include <utility>
#include <vector>

namespace errand::sessions {

// The project directory (0700 when errand makes it), the state a resumed thread carries over
// from its last session, and the session's private state and record directories.
sdk::Result<void> prepare_session_directories(const SessionPlan& plan, const SessionPaths& paths,
                                              const std::filesystem::path& state_dir,
                                              spdlog::logger& log);

struct LaunchFacts {
  const SessionPlan& plan;
  const SessionServices& services;
  const SessionPaths& paths;
  const sdk::SandboxPolicy& policy;
  const sdk::BrokerSession* broker = nullptr;  // none: the session has no broker
  const agent::EnvironmentList& github_env;
  const HouseRules* house_rules = nullptr;
  std::string model;
  bool delegate = false;  // agent.delegate: the delegate command's programs go in
};

struct SandboxLaunch {
  sdk::LaunchSpec spec;
  // The agent takes the house rules at launch; otherwise the first prompt carries them.
  bool took_house_rules = false;
  // Session config options to set once the conversation is open.
  std::vector<std::pair<std::string, std::string>> config_options;
  // Every variable the agent starts with, so an auth method reading them can be chosen.
  std::vector<std::string> environment_names;
};

// Writes the agent's launch files into the session's state directory.
sdk::Result<SandboxLaunch> sandbox_launch(const LaunchFacts& facts);

}  // namespace errand::sessions
