#pragma once

// The steps of `errand setup`, each checked before it is done and reported on one line (see
// step_report.hpp). A step that cannot be done throws StepFailed, which ends the run.

#include "core/setup/setup_context.hpp"

namespace errand::setup {

// The core's, which every backend needs.
void step_log_dir(SetupContext& context);
void step_account(SetupContext& context);
void step_config_file(SetupContext& context);
void step_directories(SetupContext& context);
// The ACP agents errand bundles, installed with npm from the shipped lockfile (step_agents.cpp).
void step_agents(SetupContext& context);
void step_cgroup(SetupContext& context);
void step_service(SetupContext& context);
// Not a change: names the values of the configuration still left to fill in.
void report_left_to_fill(SetupContext& context);

// A backend's own steps are its plugin's (backend_hook_run.hpp).

}  // namespace errand::setup
