#include "core/daemon/serve_runner_settings.hpp"

#include "core/config/string_settings.hpp"

#include <errand/sdk/config_values.hpp>

namespace errand::daemon {

namespace json = boost::json;

RunnerSettings runner_settings_from(const json::object& effective) {
  const std::filesystem::path state_dir = config::string_setting(effective, "stateDir");
  RunnerSettings settings;
  settings.state_dir = state_dir / "runner";
  auto& scheduler = settings.scheduler;
  scheduler.bounds.max_running = config::whole_setting(effective, "runner.maxJobs", 1);
  const json::object* runner = nullptr;
  if (const auto* found = effective.if_contains("runner")) runner = found->if_object();
  if (runner != nullptr) {
    // Read here rather than with whole_setting, which takes 0 for "absent": 0 queues none.
    if (const auto* queued = runner->if_contains("maxQueued"))
      if (const auto count = queued->if_int64(); count && *count >= 0)
        scheduler.bounds.max_queued = static_cast<std::size_t>(*count);
    if (const auto* users = runner->if_contains("allowUsers"); users && users->is_array())
      for (const auto& user : users->get_array())
        if (user.is_string()) scheduler.allow_users.emplace_back(user.get_string());
    if (const auto* cache = runner->if_contains("cacheSize"))
      if (auto bytes = sdk::parse_size(*cache)) scheduler.blob_max_bytes = *bytes;
  }
  const auto socket = config::string_setting(effective, "runner.socket");
  settings.socket = socket.empty() ? state_dir / "runner.sock" : std::filesystem::path(socket);
  return settings;
}

}  // namespace errand::daemon
