#pragma once

// The configuration as a command other than `errand run` reads it: found where errand run finds
// it, with a logger that says only errors, so the plugin scan's warnings stay out of what the
// command prints.

#include "core/daemon/configuration_source.hpp"
#include "core/log/logging.hpp"
#include "core/secrets/secret_scrubber.hpp"

#include <spdlog/logger.h>

#include <memory>

namespace errand::cli {

class CommandConfiguration {
 public:
  CommandConfiguration();
  CommandConfiguration(const CommandConfiguration&) = delete;
  CommandConfiguration& operator=(const CommandConfiguration&) = delete;

  const daemon::ConfigurationSource& source() const noexcept { return source_; }
  const std::shared_ptr<spdlog::logger>& log() const noexcept { return log_; }

 private:
  secrets::SecretScrubber scrubber_;
  log::Logging logging_;
  std::shared_ptr<spdlog::logger> log_;
  daemon::ConfigurationSource source_;
};

}  // namespace errand::cli
