#pragma once

// Running podman from the daemon: an environment built from nothing (HOME, PATH, the account's
// runtime directory and errand's containers.conf), never the daemon's own, since an inherited
// XDG_RUNTIME_DIR or DBUS_SESSION_BUS_ADDRESS breaks rootless podman and an account's own
// containers.conf could add mounts or variables to every session.

#include <sys/types.h>

#include <chrono>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "common/process_spawn.hpp"

namespace errand::podman {

struct PodmanEnvironment {
  std::filesystem::path program = "/usr/bin/podman";
  std::filesystem::path home;
  std::filesystem::path runtime_dir;      // XDG_RUNTIME_DIR: the account's, mode 0700
  std::filesystem::path containers_conf;  // errand's own (containers_conf.hpp)

  std::vector<std::pair<std::string, std::string>> variables() const;
};

// For the account this process runs as: its home from the password database, and
// XDG_RUNTIME_DIR when it is set, else /run/user/<uid>, where scripts/prepare-podman-account
// mounts it. Finds podman on the standard PATH; program stays empty when there is none.
PodmanEnvironment environment_for_this_account(const std::filesystem::path& containers_conf);

// Where name is installed on the standard PATH (the daemon's own PATH is not trusted); empty
// when it is not.
std::string installed_program(const std::string& name);

struct CommandOutput {
  int exit_code = -1;      // -1 when ended by a signal (the timeout included)
  bool timed_out = false;  // errand killed it at the timeout
  std::string out;
  std::string err;
};

// Runs podman with args to completion with stdin on /dev/null; killed after timeout, with
// whatever it started in its process group (which holds its output pipes too). Blocking.
// extra joins podman's environment (the values of variables a container is given by name).
// An error only when it could not be started at all.
sdk::Result<CommandOutput> run_podman(
    const PodmanEnvironment& env, const std::vector<std::string>& args,
    std::chrono::milliseconds timeout,
    const std::vector<std::pair<std::string, std::string>>& extra = {});

// A `podman run` or `podman start --attach` left running: its stdio is the container's (passthrough
// logs), its pidfd says when it ends. The fds belong to whoever holds this.
using RunningPodman = common::PipedProcess;

sdk::Result<RunningPodman> start_podman(
    const PodmanEnvironment& env, const std::vector<std::string>& args,
    const std::vector<std::pair<std::string, std::string>>& extra);

// podman's own words for a failed command: its stderr, trimmed (the last 1000 bytes of a long
// one), or the exit code.
std::string failure_text(const CommandOutput& output);

}  // namespace errand::podman
