#pragma once

#include "core/config/load.hpp"
#include "core/daemon/configuration_source.hpp"

#include <spdlog/logger.h>
#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <functional>
#include <optional>
#include <string>

namespace errand::daemon {

// One reload of the configuration, decided whole: the file is validated, the fields a reload
// does not reach are held at their start-up values (core/config/reload.hpp decides which) and
// the result validated again, and the sandbox backend is asked what it would enforce for it.
// A reload that would leave a guarantee unenforced while sandbox.requireFullEnforcement holds
// is refused, as the same configuration would be at startup.
class ConfigurationReload {
 public:
  using Probe =
      std::function<sdk::Result<sdk::EnforcementReport>(const boost::json::object& effective)>;

  ConfigurationReload(const config::LoadedConfig& startup, const sdk::EnforcementReport& report);

  struct Accepted {
    config::LoadedConfig applied;        // what the daemon now serves with
    boost::json::object file_effective;  // the file as written, for its secrets
  };
  // Reads the file again. Everything the log needs is said here: each reason for a refusal,
  // each change held until a restart (once per edit), and the enforcement report when it
  // changes. nullopt when the reload is refused; the daemon keeps what it had.
  std::optional<Accepted> next(const ConfigurationSource& source,
                               const config::LoadedConfig& current, const Probe& probe,
                               spdlog::logger& log);

 private:
  bool enforcement_allows(const config::LoadedConfig& applied, const Probe& probe,
                          spdlog::logger& log);

  boost::json::object startup_written_;
  boost::json::object startup_effective_;
  boost::json::object file_effective_;  // as the last accepted reload (or the start) read it
  std::string report_;                  // the enforcement report last logged
};

}  // namespace errand::daemon
