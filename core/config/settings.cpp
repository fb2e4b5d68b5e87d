#include "core/config/settings.hpp"

#include <errand/sdk/config_values.hpp>
#include <stdexcept>

namespace errand::config {

namespace json = boost::json;

namespace {

const json::value& required(const json::object& config, std::string_view dotted) {
  const auto* found = sdk::find_setting(config, dotted);
  if (found == nullptr)
    throw std::invalid_argument("the effective configuration lacks `" + std::string(dotted) +
                                "`; it did not come from a successful load");
  return *found;
}

std::string text(const json::object& config, std::string_view dotted) {
  const auto& value = required(config, dotted);
  if (!value.is_string())
    throw std::invalid_argument("`" + std::string(dotted) + "` is not a string");
  return std::string(value.as_string());
}

std::int64_t whole_number(const json::object& config, std::string_view dotted) {
  const auto& value = required(config, dotted);
  json::error_code ec;
  const auto number = value.to_number<std::int64_t>(ec);
  if (ec) throw std::invalid_argument("`" + std::string(dotted) + "` is not a whole number");
  return number;
}

}  // namespace

Settings settings_from(const json::object& effective) {
  Settings settings;
  settings.project_root = text(effective, "projectRoot");
  settings.state_dir = text(effective, "stateDir");
  const auto& dirs = required(effective, "plugins.path");
  if (!dirs.is_array()) throw std::invalid_argument("`plugins.path` is not a list");
  for (const auto& dir : dirs.as_array()) {
    if (!dir.is_string()) throw std::invalid_argument("`plugins.path` holds a non-string");
    settings.plugin_dirs.emplace_back(std::string(dir.as_string()));
  }
  settings.log_level = text(effective, "logging.level");
  // No chat section: the web interface is the chat service, and no plugin is loaded for one.
  if (sdk::find_setting(effective, "chat") != nullptr)
    settings.chat_transport = text(effective, "chat.transport");
  settings.limits.max_concurrent_turns = whole_number(effective, "limits.maxConcurrentTurns");
  settings.limits.max_live_sessions = whole_number(effective, "limits.maxLiveSessions");
  settings.limits.max_queue_length = whole_number(effective, "limits.maxQueueLength");
  settings.limits.max_queue_wait_ms = whole_number(effective, "limits.maxQueueWaitMs");
  settings.timeouts.idle_ms = whole_number(effective, "timeouts.idleMs");
  settings.timeouts.startup_ms = whole_number(effective, "timeouts.startupMs");
  settings.timeouts.question_ms = whole_number(effective, "timeouts.questionMs");
  settings.timeouts.abort_ms = whole_number(effective, "timeouts.abortMs");
  return settings;
}

}  // namespace errand::config
