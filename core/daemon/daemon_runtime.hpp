#pragma once

// Everything that lives while the daemon serves, built by the start's steps (start_steps.hpp)
// and torn down in reverse order of its members.

#include "core/config/load.hpp"
#include "core/config/watcher.hpp"
#include "core/daemon/configuration_reload.hpp"
#include "core/daemon/configuration_source.hpp"
#include "core/daemon/plugin_hosting.hpp"
#include "core/daemon/system_clock.hpp"
#include "core/log/logging.hpp"
#include "core/receipts/receipts_db.hpp"
#include "core/secrets/secret_scrubber.hpp"
#include "core/sessions/queue.hpp"
#include "core/sessions/session_manager.hpp"
#include "core/threads/threads_db.hpp"
#include "core/threads/threads_store.hpp"
#include "core/web/web_chat.hpp"
#include "core/web/web_interface.hpp"

#include <boost/asio/io_context.hpp>
#include <memory>
#include <optional>

namespace errand::daemon {

// Members are destroyed in reverse order: the plugin instances go before the io_context their
// handlers were posted to.
struct Runtime {
  boost::asio::io_context io;
  secrets::SecretScrubber scrubber;
  log::Logging logging{scrubber};
  SystemClock clock;
  std::shared_ptr<spdlog::logger> log = logging.logger("errand");
  ConfigurationSource source;
  config::LoadedConfig config;
  std::unique_ptr<receipts::ReceiptsDb> receipts;
  std::unique_ptr<sessions::ThreadsDb> threads;
  std::optional<PluginHost> host;
  std::unique_ptr<config::ConfigWatcher> watcher;
  // Declared after the plugin host so they go first: sessions hold plugin objects (sandbox
  // processes, broker sessions) that must not outlive the instances that made them.
  std::unique_ptr<sessions::ThreadsStore> store;
  std::unique_ptr<sessions::TurnQueue> queue;
  // The chat service when the configuration names none: the web interface's own.
  std::unique_ptr<web::WebChat> web_chat;
  std::shared_ptr<sessions::SessionManager> manager;
  std::unique_ptr<web::WebInterface> web;

  std::optional<ConfigurationReload> reloads;

  // The configuration file changed: checked, probed and, when accepted, applied to what reads
  // it while serving (the scrubber, the log level, the queue, new sessions).
  void reload();
};

}  // namespace errand::daemon
