#pragma once

// What setup reads from the configuration: the directories to create, the backend, and which
// of the values an operator must fill in are still the shipped example's placeholders. Read with
// the core's JSONC parser, without the full validation `errand run` does: a configuration
// still full of placeholders is exactly what setup expects to find.

#include <boost/json/object.hpp>
#include <filesystem>
#include <string>
#include <vector>

namespace errand::setup {

struct SetupConfig {
  std::filesystem::path project_root;
  std::filesystem::path state_dir;
  std::string backend;  // sandbox.backend
};

// Parses a JSONC file into an object; StepFailed (for `step`) naming the file and the problem.
boost::json::object read_jsonc_object(const std::filesystem::path& file, const std::string& step);

// projectRoot and stateDir from `config`, else from `example` (the shipped example holds the
// defaults setup uses); the backend as the core reads sandbox.backend (its schema default when
// the file names none).
SetupConfig setup_values(const boost::json::object& config, const boost::json::object& example);

// The keys an operator still has to fill in, dotted ("chat.token",
// "agent.providers.anthropic.credential"): a string beginning "replace-with-" anywhere, and the
// chat channel and the lists of people when they are still the example's own values.
std::vector<std::string> placeholder_keys(const boost::json::object& config,
                                          const boost::json::object& example);

}  // namespace errand::setup
