#include "core/cli/command_configuration.hpp"

namespace errand::cli {

namespace {

std::shared_ptr<spdlog::logger> errors_only(log::Logging& logging) {
  logging.set_level("error");
  return logging.logger("errand");
}

}  // namespace

CommandConfiguration::CommandConfiguration()
    : logging_(scrubber_),
      log_(errors_only(logging_)),
      source_(
          daemon::ConfigurationSource::discover(daemon::RunEnvironment::from_process(), *log_)) {}

}  // namespace errand::cli
