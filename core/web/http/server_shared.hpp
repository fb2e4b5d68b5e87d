#pragma once

// What the listener and its connections share: the acceptor, the checks' allowed values, the
// access secrets and their cookie's name, where
// the front-end is, the router, and the open connections stop() closes. The accept loop and
// every connection hold it, so it outlives the server object until the last of them has ended.

#include "core/web/access/access_check.hpp"
#include "core/web/access/access_keeper.hpp"
#include "core/web/http/request_checks.hpp"
#include "core/web/http/web_http.hpp"

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <unordered_map>
#include <utility>

namespace errand::web {

struct ServerShared {
  explicit ServerShared(boost::asio::any_io_executor executor) : acceptor(std::move(executor)) {}
  boost::asio::ip::tcp::acceptor acceptor;
  boost::asio::ip::tcp::endpoint endpoint;
  Allowed allowed;
  std::shared_ptr<AccessKeeper> access;
  AccessDoor door;
  std::filesystem::path front_end_dir;
  Router* router = nullptr;
  std::shared_ptr<spdlog::logger> log;
  bool stopped = false;
  std::unordered_map<std::uint64_t, boost::beast::tcp_stream*> open_connections;
  bool over_connection_cap = false;  // so the log says so once each time the cap is reached
  std::uint64_t next_connection = 0;
};

// Serves one accepted connection: requests one after another (keep-alive) until the peer
// closes, a request asks to close, an event stream ends, or stop() closes it.
boost::asio::awaitable<void> serve_connection(std::shared_ptr<ServerShared> shared,
                                              boost::asio::ip::tcp::socket socket);

}  // namespace errand::web
