#pragma once

// `errand run` with no configuration file: what it tells the operator about the built-in
// default it starts on, and `errand run --save-config`, which writes that default where errand
// looks first so it can be edited and kept.

#include "core/daemon/configuration_source.hpp"
#include "core/daemon/run_environment.hpp"

#include <errand/sdk/result.hpp>

#include <filesystem>
#include <string>

namespace errand::daemon {

// The lines printed at start under the built-in default: the key it uses, the agent, the
// configuration (its key replaced by the variable's name), and how to keep it as a file.
std::string describe_built_in_start(const ConfigurationSource& source);

// Writes the built-in default for this environment to the first place errand looks for a
// configuration (ERRAND_CONFIG's file when that is set), returning the path. Refused when a
// configuration file already exists there or anywhere errand would find it first, or when the
// environment holds no key the default can use.
sdk::Result<std::filesystem::path> save_built_in_default(const RunEnvironment& env);

}  // namespace errand::daemon
