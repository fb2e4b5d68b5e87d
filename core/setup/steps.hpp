#pragma once

// The steps of `errand setup`, each checked before it is done and reported on one line (see
// step_report.hpp). A step that cannot be done throws StepFailed, which ends the run.

#include "core/setup/setup_context.hpp"

namespace errand::setup {

// bailey's, which every backend needs.
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

// podman's.
void step_podman_packages(SetupContext& context);
void step_podman_account(SetupContext& context);
void step_podman_image(SetupContext& context);

// incus's.
void step_incus_packages(SetupContext& context);
void step_incus_host(SetupContext& context);
void step_incus_image(SetupContext& context);
void step_incus_golden(SetupContext& context);

}  // namespace errand::setup
