#pragma once

// The web interface's HTTP/1.1 server on the daemon's io_context: it listens on one address the
// bind check accepted, passes every request through the checks (request_checks.hpp) and the
// access secret's (access_check.hpp), hands
// /api/... to the Router and serves the built front-end's files for the rest. Everything runs
// on the executor's one thread; start(), endpoint() and stop() are called from it too.

#include "core/web/http/web_http.hpp"

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace errand::web {

class AccessKeeper;
struct ServerShared;

class WebServer {
 public:
  struct Settings {
    boost::asio::ip::address address;  // judged again by bind_address_of before binding
    std::uint16_t port = 8787;         // 0 asks for any free port; endpoint() says which
    std::optional<std::string> public_url;
    bool observer = false;
    std::filesystem::path front_end_dir;
    // The secrets every request must carry one of (access_check.hpp); required.
    std::shared_ptr<AccessKeeper> access;
  };

  // Binds and starts accepting. A port another program holds, an address this host does not
  // have, or one the bind check refuses is refused with a sentence saying so. The router is
  // used until every connection has ended, which stop() hastens: it must outlive them.
  static sdk::Result<std::unique_ptr<WebServer>> start(boost::asio::any_io_executor executor,
                                                       Settings settings, Router& router,
                                                       std::shared_ptr<spdlog::logger> log);

  WebServer(const WebServer&) = delete;
  WebServer& operator=(const WebServer&) = delete;
  ~WebServer();

  // Where it listens: the real port when 0 was asked for.
  boost::asio::ip::tcp::endpoint endpoint() const;

  // Closes the listener and every open connection, event streams included: a stream's next
  // send() answers false, so its writer returns. Calling it again does nothing.
  void stop();

 private:
  explicit WebServer(std::shared_ptr<ServerShared> shared) : shared_(std::move(shared)) {}
  std::shared_ptr<ServerShared> shared_;
};

}  // namespace errand::web
