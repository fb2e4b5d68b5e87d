#pragma once

// The web interface as the daemon runs it: the settings of its `web` block, the API that reads
// and drives sessions, and the HTTP server that serves both with the built page. Started once the
// session manager is, stopped before it.

#include "core/receipts/receipts_db.hpp"
#include "core/sessions/session_manager.hpp"
#include "core/threads/threads_store.hpp"
#include "core/web/access/access_secrets.hpp"
#include "core/web/web_chat.hpp"

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <errand/sdk/chat_transport.hpp>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace errand::web {

class WebServer;
class WebApi;

struct WebSettings {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8787;
  bool observer = false;
  std::optional<std::string> public_url;
};

// The `web` block, or nothing when the configuration has none.
std::optional<WebSettings> web_settings_from(const boost::json::object& config);

class WebInterface {
 public:
  struct Context {
    boost::asio::any_io_executor executor;
    std::shared_ptr<sessions::SessionManager> manager;
    sessions::ThreadsStore& threads;
    receipts::ReceiptsDb& receipts;
    const sdk::Secrets& secrets;
    std::filesystem::path state_dir;
    sdk::ChatTransport& chat;
    // The chat when the configuration has no chat service; null when it has one.
    WebChat* web_chat = nullptr;
    std::string chat_name;   // chat.transport, empty without a chat service
    std::string channel_id;  // where a session started from the page opens its thread
    std::filesystem::path front_end;
    std::shared_ptr<spdlog::logger> log;
    // agent.model as the configuration says now, for rows whose thread names no model.
    std::function<std::string()> default_model;
  };

  // Binds and serves; refused with the reason when the address is not one to serve on, is not
  // this host's, or the port is taken, or when the page's files are missing.
  static sdk::Result<std::unique_ptr<WebInterface>> start(Context context,
                                                          const WebSettings& settings);
  ~WebInterface();

  // Where it serves, "http://127.0.0.1:8787/", without a secret: what the log may show.
  std::string address() const;
  // What to open in a browser: the address with the operator's secret, or the observer's (which
  // only reads), as made at start (a rotation while running is printed by errand web-access).
  std::string operator_address() const;
  std::string observer_address() const;
  // Closes the listener and every open connection, streams included.
  void stop();

 private:
  WebInterface() = default;
  std::unique_ptr<WebApi> api_;
  std::unique_ptr<WebServer> server_;
  std::string address_;
  AccessSecrets secrets_;
};

}  // namespace errand::web
