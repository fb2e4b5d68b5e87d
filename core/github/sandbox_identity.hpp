#pragma once

// What a session's sandbox is given so that git and gh act as the configured GitHub identity:
// a credential helper script and, for an App, the files its renewed token is kept in, beneath
// the session's state directory; and the variables that point git at the helper and set the
// commit identity. An App token cannot travel in the environment, which is fixed at launch and
// would outlive the token, so the helper and gh read it from the state directory.

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/agent/host_process.hpp"
#include "core/github/github_settings.hpp"

namespace errand::github {

// One file beneath the session's state directory, to be written with agent::write_beneath.
struct IdentityFile {
  std::filesystem::path relative_path;
  std::string content;
  // As the agent's other state files: the state directory itself keeps others out, and the
  // sandboxed agent, under whatever account its backend maps, must read them.
  mode_t mode = 0644;
};

struct SandboxIdentity {
  std::vector<IdentityFile> files;  // what is written once per launch
  agent::EnvironmentList env;
};

inline constexpr std::string_view kCredentialHelperFile = "github/git-credential";
inline constexpr std::string_view kTokenFile = "github/token";
inline constexpr std::string_view kGhHostsFile = "home/.config/gh/hosts.yml";

// state_inside is where the sandbox sees the session's state directory ("/state").
SandboxIdentity sandbox_identity(const GithubSettings& settings,
                                 std::string_view state_inside = "/state");

// The files an App token lives in (github/token and gh's hosts.yml), written at start and
// again on every renewal.
std::vector<IdentityFile> app_token_files(const GithubSettings& settings, std::string_view token);

// What github/token holds.
std::string token_file_content(std::string_view token);

}  // namespace errand::github
