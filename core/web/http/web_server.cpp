#include "core/web/http/web_server.hpp"

#include "core/web/http/bind_address.hpp"
#include "core/web/http/server_shared.hpp"

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <utility>

namespace errand::web {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// After a failed accept (out of descriptors, say) the loop waits a little rather than spin.
constexpr std::chrono::milliseconds kAcceptRetry{100};

sdk::Error bind_failure(const boost::system::error_code& ec, const tcp::endpoint& endpoint) {
  const auto address = endpoint.address().to_string();
  if (ec == boost::system::errc::address_in_use) {
    return sdk::refusal(fmt::format(
        "port {} on {} is in use by another program; stop that program, or set web.port to a "
        "free port",
        endpoint.port(), address));
  }
  if (ec == boost::system::errc::address_not_available) {
    return sdk::refusal(fmt::format(
        "this host has no address {}; set web.host to one of its own addresses (\"ip address\" "
        "lists them), or to 127.0.0.1",
        address));
  }
  if (ec == boost::system::errc::permission_denied) {
    return sdk::refusal(
        fmt::format("port {} needs privileges errand does not have; set web.port to 1024 or above",
                    endpoint.port()));
  }
  return sdk::make_error(fmt::format("the web interface cannot listen on port {} of {}: {}",
                                     endpoint.port(), address, ec.message()));
}

asio::awaitable<void> accept_connections(std::shared_ptr<ServerShared> shared) {
  while (!shared->stopped) {
    auto [ec, socket] = co_await shared->acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
    if (shared->stopped) co_return;
    if (ec) {
      shared->log->warn("web interface: accepting a connection failed: {}", ec.message());
      asio::steady_timer pause(shared->acceptor.get_executor(), kAcceptRetry);
      co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
      continue;
    }
    asio::co_spawn(shared->acceptor.get_executor(), serve_connection(shared, std::move(socket)),
                   asio::detached);
  }
}

}  // namespace

sdk::Result<std::unique_ptr<WebServer>> WebServer::start(asio::any_io_executor executor,
                                                         Settings settings, Router& router,
                                                         std::shared_ptr<spdlog::logger> log) {
  // Judged here too, so no caller can put the interface, which has no login, on a public
  // address.
  auto address = bind_address_of(settings.address.to_string());
  if (!address) return address.error();
  if (!settings.access)
    return sdk::make_error("the web interface was started without its access secrets");
  auto shared = std::make_shared<ServerShared>(executor);
  const tcp::endpoint wanted(*address, settings.port);
  auto& acceptor = shared->acceptor;
  boost::system::error_code ec;
  acceptor.open(wanted.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec && wanted.address().is_v6()) acceptor.set_option(asio::ip::v6_only(true), ec);
  if (ec) {
    return sdk::make_error(
        fmt::format("the web interface cannot open a listening socket: {}", ec.message()));
  }
  acceptor.bind(wanted, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return bind_failure(ec, wanted);
  shared->endpoint = acceptor.local_endpoint(ec);
  if (ec) return bind_failure(ec, wanted);
  auto allowed =
      allowed_for(*address, shared->endpoint.port(), settings.public_url, settings.observer);
  if (!allowed) return allowed.error();
  shared->allowed = std::move(*allowed);
  shared->access = std::move(settings.access);
  shared->door = access_door(shared->endpoint.port(),
                             settings.public_url && settings.public_url->starts_with("https://"));
  shared->front_end_dir = std::move(settings.front_end_dir);
  shared->router = &router;
  shared->log = std::move(log);
  shared->log->info("web interface: listening on {}{}", shared->allowed.origins.front(),
                    settings.observer ? " as an observer" : "");
  asio::co_spawn(executor, accept_connections(shared), asio::detached);
  return std::unique_ptr<WebServer>(new WebServer(std::move(shared)));
}

WebServer::~WebServer() {
  stop();
}

tcp::endpoint WebServer::endpoint() const {
  return shared_->endpoint;
}

void WebServer::stop() {
  if (shared_->stopped) return;
  shared_->stopped = true;
  boost::system::error_code ec;
  shared_->acceptor.close(ec);
  // Closing cancels what each connection waits on; its coroutine then ends and drops itself
  // from the map, after this loop (completions are never run from inside close).
  for (const auto& [id, stream] : shared_->open_connections) {
    stream->socket().shutdown(tcp::socket::shutdown_both, ec);
    stream->close();
  }
  shared_->log->info("web interface: stopped");
}

}  // namespace errand::web
