#pragma once

// What `errand run` judges of its configuration after validation and before it serves, from the
// configuration and the files it names alone: that sessions could reach something through the
// broker, that the GitHub App's key file reads, that the house rules file reads. `errand config
// check` runs the same function, so a configuration it accepts passes these at the start too.
// (The sandbox's probe and the agent's install need the plugins loaded and are the daemon's.)

#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/github/github_at_start.hpp"
#include "core/sessions/house_rules.hpp"

namespace errand::daemon {

struct ServeReadiness {
  std::optional<github::GithubIdentity> github;
  std::optional<sessions::HouseRules> house_rules;
  // Not refusals: a provider host this host cannot resolve (sessions' calls to it would fail).
  std::vector<std::string> warnings;
};

// The readiness, or the sentence the daemon refuses to start with (exit 2).
sdk::Result<ServeReadiness> check_serve_readiness(const boost::json::object& effective);

}  // namespace errand::daemon
