#pragma once

#include <spdlog/logger.h>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace errand::sdk {
class Secrets;
}

namespace errand::log {

// Every logger the daemon and its plugins use writes through one sink that scrubs secrets and
// escapes control characters, so neither a token nor a forged log line can reach the log.
class Logging {
 public:
  explicit Logging(const sdk::Secrets& secrets);

  std::shared_ptr<spdlog::logger> logger(const std::string& name);
  // Accepts trace|debug|info|warn|error; anything else is ignored and reported as false.
  bool set_level(std::string_view level);

 private:
  spdlog::sink_ptr sink_;
  spdlog::level::level_enum level_ = spdlog::level::info;
  // A reload may change the level; loggers already handed out follow it.
  std::vector<std::weak_ptr<spdlog::logger>> issued_;
};

// Escapes control bytes and DEL as \xNN, and indents the lines after a newline, so text from
// a session can never forge a log entry of its own.
std::string escape_controls(std::string_view text);

}  // namespace errand::log
