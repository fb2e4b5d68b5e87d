#include "core/daemon/serve_readiness.hpp"

#include "core/daemon/startup_checks.hpp"

namespace errand::daemon {

sdk::Result<ServeReadiness> check_serve_readiness(const boost::json::object& effective) {
  ServeReadiness readiness;
  if (auto reachable = refuse_empty_egress(effective); !reachable) return reachable.error();
  readiness.warnings = unresolved_provider_warnings(effective);
  auto github_identity = github::check_github_at_start(effective);
  if (!github_identity) return github_identity.error();
  readiness.github = std::move(*github_identity);
  auto rules = sessions::read_house_rules(effective);
  if (!rules)
    return sdk::make_error("refusing to start: " + rules.error().message, rules.error().kind);
  readiness.house_rules = std::move(*rules);
  return readiness;
}

}  // namespace errand::daemon
