#include "core/daemon/daemon_runtime.hpp"

#include "core/config/secrets.hpp"
#include "core/config/settings.hpp"
#include "core/sandbox/sandbox_choice.hpp"

namespace errand::daemon {

void Runtime::reload() {
  auto probe = [this](const boost::json::object& effective) {
    return host->probe_backend_with(sandbox::sandbox_choice(effective).backend, effective);
  };
  auto accepted = reloads->next(source, config, probe, *log);
  if (!accepted) return;
  config = std::move(accepted->applied);
  // The file's secrets are scrubbed too: a token written for the next start is still secret.
  auto secrets = config::collect_secrets(config.effective, source.schema);
  for (auto& secret : config::collect_secrets(accepted->file_effective, source.schema))
    secrets.push_back(std::move(secret));
  scrubber.set_configured(std::move(secrets));
  logging.set_level(config::settings_from(config.effective).log_level);
  if (queue) {
    if (auto limits = sessions::queue_limits_from_config(config.effective); limits)
      queue->update_limits(*limits);
    else
      log->warn("the queue keeps its limits: {}", limits.error().message);
  }
  if (manager) manager->update_config(config.effective);
  log->info(
      "configuration reloaded from {}; new sessions and the daemon's answers use it, and "
      "sessions already running keep what they were launched with",
      config.source.string());
}

}  // namespace errand::daemon
