#pragma once

// What differs between agents, behind one small interface: the command line, the variables
// that tell the agent where its provider is and which key to present, the files it reads from
// its state directory, and which host directories its install needs. The core adds the proxy
// variables (proxy_environment) and the backend's own floor (PATH, HOME).

#include "core/agent/host_process.hpp"
#include "core/agent/kage_catalog.hpp"
#include "core/agent/provider_routes.hpp"

#include <boost/json/object.hpp>
#include <errand/sdk/config_problems.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace errand::agent {

struct StateFile {
  std::filesystem::path relative_path;  // beneath the session's state dir; write with write_beneath
  std::string content;
};

struct AgentLaunch {
  // argv[0] is the absolute path found on the daemon's PATH when the agent runs from the
  // host's install; an image's agent is looked up inside the image.
  std::vector<std::string> argv;
  EnvironmentList env;  // provider endpoints and keys (stand-ins under the broker)
  std::vector<StateFile> files;
  std::vector<std::filesystem::path> agent_dirs;  // read + execute, ahead on PATH
  // session/set_config_option calls to make once the session is open (configId, value), e.g.
  // the model of an agent that takes no model on its command line, or a thinking level.
  std::vector<std::pair<std::string, std::string>> config_options;
  // The glue handed LaunchInputs::house_rules to the agent itself (kage's --system); when false
  // the session puts them ahead of the first prompt instead.
  bool took_house_rules = false;
};

struct LaunchInputs {
  const boost::json::object* config = nullptr;  // the effective configuration
  std::vector<ProviderRoute> routes;            // provider_routes(config, broker session)
  std::string provider;  // the session's provider; empty means agent.provider
  std::string model;     // the session's model (alias allowed); empty means agent.model
  // Under bailey the agent runs from the host's install, whose directories must be granted;
  // podman and incus run the image's, so there is nothing on the host to find.
  bool agent_installed_on_host = true;
  // The PATH the install is looked up on; empty means the daemon's own.
  std::string search_path;
  // No install directory may hold these: every session reads what is in one.
  std::filesystem::path config_file{};  // the configuration the daemon loaded
  std::filesystem::path home{};         // empty: the daemon's own home (daemon_home())
  // agent.rulesPath's text as this session read it; empty: none.
  std::string house_rules{};
  // Where a bundled kind's install is looked for; empty: bundled_agent_roots_of_process().
  std::vector<std::filesystem::path> bundled_roots{};
};

class AgentGlue {
 public:
  virtual ~AgentGlue() = default;
  virtual std::string_view kind() const noexcept = 0;
  // Checks what this agent cannot run with, at start-up and on every reload; each problem names
  // its key and says what to change.
  virtual void check(const boost::json::object& config, sdk::ConfigProblems& problems) const = 0;
  virtual sdk::Result<AgentLaunch> prepare(const LaunchInputs& inputs) const = 0;
};

// Writes launch.files beneath the session's host state directory (write_beneath: no planted
// symlink is followed). Stops at the first file that cannot be written.
sdk::Result<void> write_launch_files(const std::filesystem::path& state_dir,
                                     const AgentLaunch& launch);

// The glue agent.kind names. kage needs the catalog the host's kage answered at start-up.
// agent.kind, "kage" when unset: the one reading every caller shares, so a reload compares
// like with like.
std::string agent_kind(const boost::json::object& config);

sdk::Result<std::unique_ptr<AgentGlue>> make_agent_glue(const boost::json::object& config,
                                                        const KageCatalog* kage_catalog);

// Whether the glue agent.kind names is made from the host kage's catalog, which must be asked
// for (discover_kage_providers) before make_agent_glue can succeed (see agent_kinds.hpp).
bool glue_needs_kage_catalog(const boost::json::object& config);

// The model a session starts on: the one asked for (or agent.model), through agent.aliases,
// split at a ":level" suffix, which is the thinking level rather than part of the name.
struct ModelChoice {
  std::string model;           // empty: the provider's default
  std::string thinking_level;  // empty: none asked for
};
ModelChoice choose_model(const boost::json::object& config, std::string_view requested);

// The route named provider, or agent.provider when empty; an error names what is missing.
sdk::Result<const ProviderRoute*> session_route(const LaunchInputs& inputs);

// Where every glue's prepare starts: there is a configuration, check() finds no problem in it
// (else the refusal lists them all and says that `agent` cannot run), and the session's route.
sdk::Result<const ProviderRoute*> checked_route(const AgentGlue& glue, const LaunchInputs& inputs,
                                                std::string_view agent);

// The program the agent command names, as the sandbox runs it: where the agent runs from the
// host's install, launch.argv[0] becomes the absolute path found on the search path (for a
// bundled kind, its installs' bin directories, then the search path) and
// launch.agent_dirs its install directories (see program_location.hpp). Refused when the
// program is not found, or when an install directory is the daemon's home or holds the
// configuration file.
sdk::Result<void> place_agent_install(const LaunchInputs& inputs, AgentLaunch& launch);

// The program agent.command starts, or kage's when it is not set.
std::string agent_program(const boost::json::object& config);

}  // namespace errand::agent
