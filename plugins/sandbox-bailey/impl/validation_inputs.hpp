#pragma once

// What bailey's validate_config checks, read from the effective configuration. Validation runs
// before any instance exists, over the configuration alone, so there is no SandboxPolicy yet to
// hand it; at launch the same checks run again on the policy the core built. This is the only
// place the plugin reads the core's keys, and it reads only what it checks.

#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <string>
#include <utility>
#include <vector>

namespace errand::bailey {

struct ValidationInputs {
  bool bailey_selected = true;  // sandbox.backend names bailey (or is left out)
  std::vector<std::string> extra_read, extra_write, extra_execute;
  std::vector<std::string> path_extra;
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> credential_names;
  std::string project_root;
  std::string state_dir;
};

// Refuses a value of the wrong type; an absent key reads as nothing to check.
sdk::Result<ValidationInputs> read_validation_inputs(const boost::json::object& config);

}  // namespace errand::bailey
