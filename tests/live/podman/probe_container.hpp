#pragma once

// A session's container as podman_run_plan builds it (errand's seccomp profile with errand's own
// filter stacked on it by errand-relay, no caps, read-only root, keep-id, no network), running a
// command of the test image or the escape probe, which sits in the session's project as an
// agent's files would.

#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "core/sandbox/policy_from_config.hpp"
#include "plugins/sandbox-podman/impl/podman_backend.hpp"
#include "plugins/sandbox-podman/impl/run_plan.hpp"
#include "tests/live/podman/live_podman.hpp"
#include "tests/support/test_paths.hpp"

namespace errand::podman::live {

struct ProbeContainer : LivePodman {
  RunHost host;
  errand::sdk::LaunchSpec spec;
  int counter = 0;

  ProbeContainer() {
    auto learned = learn_run_host(env, kTestImage, dir.path() / "podman", daemon_label(dir.path()));
    INFO((learned ? std::string() : learned.error().message));
    REQUIRE(learned.has_value());
    host = *learned;
    host.relay_program =
        errand::test::build_path(ERRAND_RELAY_PROGRAM);  // every session starts with it
    auto policy = errand::sandbox::policy_from_config(boost::json::object{});
    REQUIRE(policy.has_value());
    spec.policy = *policy;
    spec.policy.network = errand::sdk::NetworkMode::none;
    spec.project_dir = dir.path() / "project";
    spec.state_dir = dir.path() / "state";
    std::filesystem::create_directories(spec.project_dir);
    std::filesystem::create_directories(spec.state_dir / "home");
    std::filesystem::copy_file(errand::test::build_path(ERRAND_ESCAPE_PROBE),
                               spec.project_dir / "escape_probe");
  }

  // Runs argv as a session's agent; what it printed and its exit code.
  CommandOutput run(std::vector<std::string> argv) {
    spec.session_id = "live-podman-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
    spec.argv = std::move(argv);
    auto plan = podman_run_plan(spec, host);
    REQUIRE(plan.has_value());
    auto out = run_podman(env, plan->args, kRunTimeout, plan->variables);
    REQUIRE(out.has_value());
    return *out;
  }

  CommandOutput probe(std::vector<std::string> args) {
    args.insert(args.begin(), "/workspace/escape_probe");
    return run(std::move(args));
  }
};

}  // namespace errand::podman::live
